// What a job is waiting on the clock for: its machine's pending `after` timers (kept durably in
// the stored snapshot's `t`) and, for a queued job with a future run time, the retry backoff or
// delayed start that holds it. Due times are Redis's clock, as stored.

import type { JobRecord } from '../store/types.js';

export interface PendingTimer {
  kind: 'after' | 'retry' | 'delayed';
  /** What fires: the `after` event's type (xstate.after.<delay>.<state id>), or the job's wake. */
  event: string;
  /** The state that set it, when known (full XState id). */
  stateId?: string;
  /** The delay's name (`deadline`) or ms, for `after` timers. */
  delay?: string;
  dueAt: number;
}

const AFTER = /^xstate\.after\.(.+?)\.(.+)$/;

export function pendingTimers(job: JobRecord): PendingTimer[] {
  const out: PendingTimer[] = [];
  const snapshot = job.snapshot as {
    t?: { id?: string; event?: { type?: string }; dueAt?: number }[];
  } | null;
  const finished = job.status === 'done' || job.status === 'failed' || job.status === 'cancelled';
  if (!finished && Array.isArray(snapshot?.t)) {
    for (const t of snapshot.t) {
      if (typeof t?.dueAt !== 'number') continue;
      const event = t.event?.type ?? t.id ?? '';
      const m = AFTER.exec(event);
      out.push({ kind: 'after', event, dueAt: t.dueAt, ...(m ? { delay: m[1], stateId: m[2] } : {}) });
    }
  }
  if (job.status === 'queued' && job.runAt !== null) {
    out.push({ kind: job.attempts > 0 ? 'retry' : 'delayed', event: 'run', dueAt: job.runAt });
  }
  return out.sort((a, b) => a.dueAt - b.dueAt);
}
