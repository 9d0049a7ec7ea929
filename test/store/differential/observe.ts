// What the differential test compares between two stores after every step: each known job's
// record (the fields both backends must agree on; no times or lease tokens), its audit log's
// entry types, its inbox, and every queue's counts.

import type { ClaimedJob, JobRecord, Store } from '../../../src/store/types.js';

/** The parts of a record that must not differ between backends. */
export type RecordView = ReturnType<typeof view>;

export function recordView(r: JobRecord | null): RecordView | null {
  return r ? view(r) : null;
}

function view(r: JobRecord) {
  return {
    status: r.status,
    state: r.state,
    output: r.output,
    error: r.error,
    attempts: r.attempts,
    maxAttempts: r.maxAttempts,
    leaseRequeues: r.leaseRequeues,
    priority: r.priority,
    progress: r.progress,
    parentId: r.parentId,
    delayed: r.runAt !== null,
    finished: r.finishedAt !== null,
    cancelRequested: r.cancelRequested,
    snapshot: r.snapshot,
  };
}

/** A claim as the worker sees it, but its lease token (each backend numbers its own). */
export function claimedView(c: ClaimedJob): unknown {
  const { token: _token, ...rest } = c;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
}

/**
 * A rejection as both backends must give it: its code. A script's own refusal on Redis (e.g.
 * BAD_COMMIT) is a bare reply error whose code is the message's first word.
 */
export function errorView(err: unknown): { error: string } {
  const e = err as { code?: unknown; message?: unknown };
  return { error: typeof e.code === 'string' ? e.code : String(e.message).split(' ')[0]! };
}

export interface Observed {
  jobs: Record<string, { record: RecordView | null; log: string[] | null; inbox: number | null }>;
  counts: Record<string, unknown>;
}

export async function observe(
  store: Store,
  jobs: ReadonlyMap<string, string>,
  queues: readonly string[],
): Promise<Observed> {
  const entries = await Promise.all(
    [...jobs].map(async ([id, queue]) => {
      const rec = await store.getJob(id, queue);
      const log = rec ? (await store.getLog(id, queue)).map((e) => e.type) : null;
      const inbox = rec ? (await store.readInbox(queue, id, 0)).length : null;
      return [id, { record: recordView(rec), log, inbox }] as const;
    }),
  );
  const counts = await Promise.all(queues.map(async (q) => [q, await store.counts(q)] as const));
  return { jobs: Object.fromEntries(entries), counts: Object.fromEntries(counts) };
}
