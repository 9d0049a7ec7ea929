// The machine page's heat map: for one machine version, how many unfinished jobs sit in each
// state now, and how long jobs stayed in each state (p50/p95) in the audit logs of a sample of
// its jobs. Bounded reads: a fleet of millions costs the same as a few thousand.

import type { AuditEntry, JobRecord, JobStatus, Store } from '../store/types.js';
import type { ChartKit } from './chartKit.js';

export interface HeatState {
  count: number;
  p50: number | null;
  p95: number | null;
}

/** Unfinished jobs read per queue and status at most. */
const NOW_CAP = 5000;
/** Jobs whose logs the dwell times come from. */
const SAMPLE = 200;
const UNFINISHED: JobStatus[] = ['queued', 'working', 'waiting'];

export async function machineHeat(
  store: Store,
  kit: ChartKit,
  definition: unknown,
  machine: string,
  version: number,
): Promise<{ machine: string; version: number; states: Record<string, HeatState>; sampled: number }> {
  const counts = new Map<string, number>();
  const sample: JobRecord[] = [];
  for (const queue of await store.queues()) {
    for (const status of [...UNFINISHED, 'done' as const, 'failed' as const]) {
      const finished = status === 'done' || status === 'failed';
      if (finished && sample.length >= SAMPLE) continue;
      let cursor: string | undefined;
      let read = 0;
      do {
        const page = await store.list({ queue, status, machine, cursor, limit: 500 });
        for (const j of page.jobs) {
          if (j.version !== version) continue;
          if (!finished)
            for (const id of kit.activeIds(definition, j.state)) counts.set(id, (counts.get(id) ?? 0) + 1);
          if (sample.length < SAMPLE) sample.push(j);
        }
        read += page.jobs.length;
        cursor = page.cursor ?? undefined;
      } while (cursor && read < (finished ? SAMPLE : NOW_CAP));
    }
  }
  const now = await store.now();
  const dwell = new Map<string, number[]>();
  const logs = await Promise.all(
    sample.map((j) => store.getLog(j.id, j.queue).catch(() => [] as AuditEntry[])),
  );
  sample.forEach((j, i) => {
    const log = logs[i]!;
    const states = log.filter((e) => e.type === 'state');
    states.forEach((e, k) => {
      const end = states[k + 1]?.at ?? j.finishedAt ?? now;
      for (const id of kit.activeIds(definition, e.state)) {
        const list = dwell.get(id) ?? [];
        list.push(end - e.at);
        dwell.set(id, list);
      }
    });
  });
  const states: Record<string, HeatState> = {};
  for (const id of new Set([...counts.keys(), ...dwell.keys()])) {
    const d = (dwell.get(id) ?? []).sort((a, b) => a - b);
    states[id] = { count: counts.get(id) ?? 0, p50: percentile(d, 0.5), p95: percentile(d, 0.95) };
  }
  return { machine, version, states, sampled: sample.length };
}

/** Nearest-rank percentile of sorted values; null for none. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
