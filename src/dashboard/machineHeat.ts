// The machine page's heat map: for one machine version, how many unfinished jobs sit in each
// state now, and how long jobs stayed in each state (p50/p95) in the audit logs of a sample of
// its jobs. Bounded reads: a fleet of millions costs the same as a few thousand.

import type { MachineGraph } from '../store/chartModel.js';
import { stateHistory } from '../chart/jobMarks.js';
import { leafStateIds } from '../chart/stateValueIds.js';
import type { AuditEntry, JobRecord, JobStatus, Store } from '../store/types.js';
import { jobLeafStates } from './chartKit.js';

export interface HeatState {
  count: number;
  p50: number | null;
  p95: number | null;
}

/** Unfinished jobs read per queue and status at most. */
const NOW_CAP = 5000;
/** Jobs whose logs the dwell times come from, and the entries read from the end of each. */
const SAMPLE = 200;
const LOG_TAIL = 100;
const UNFINISHED: JobStatus[] = ['queued', 'working', 'waiting'];

export async function machineHeat(
  store: Store,
  graph: MachineGraph,
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
        const page = await store.list({ queue, status, machine: graph.name, cursor, limit: 500 });
        for (const j of page.jobs) {
          if (j.version !== graph.version) continue;
          if (!finished) for (const id of jobLeafStates(graph, j)) counts.set(id, (counts.get(id) ?? 0) + 1);
          if (sample.length < SAMPLE) sample.push(j);
        }
        read += page.jobs.length;
        cursor = page.cursor ?? undefined;
      } while (cursor && read < (finished ? SAMPLE : NOW_CAP));
    }
  }
  const now = await store.now();
  // A final state has no stay (the job ends as it enters it): it gets no dwell time.
  const finals = new Set(graph.nodes.filter((n) => n.kind === 'final').map((n) => n.id));
  const dwell = new Map<string, number[]>();
  const logs = await Promise.all(
    sample.map((j) => store.getLog(j.id, j.queue).catch(() => [] as AuditEntry[])),
  );
  sample.forEach((j, i) => {
    for (const { ids, ms } of stateIntervals(graph, logs[i]!.slice(-LOG_TAIL), j.finishedAt ?? now)) {
      for (const id of ids) if (!finals.has(id)) dwell.set(id, [...(dwell.get(id) ?? []), ms]);
    }
  });
  const states: Record<string, HeatState> = {};
  for (const id of new Set([...counts.keys(), ...dwell.keys()])) {
    const d = (dwell.get(id) ?? []).sort((a, b) => a - b);
    states[id] = { count: counts.get(id) ?? 0, p50: percentile(d, 0.5), p95: percentile(d, 0.95) };
  }
  return { machine: graph.name, version: graph.version, states, sampled: sample.length };
}

/**
 * The stays in states a log records: each time the state it names changes, the stay in the
 * previous one ends; the last lasts until `end`. The chart module reads states from the log
 * (stateHistory), so a simple job's lifecycle moves count as well as a pipeline's states.
 */
export function stateIntervals(
  graph: MachineGraph,
  log: AuditEntry[],
  end: number,
): { ids: string[]; ms: number }[] {
  const out: { ids: string[]; ms: number }[] = [];
  let open: { key: string; value: unknown; at: number } | null = null;
  for (let i = 0; i < log.length; i++) {
    const value = stateHistory(graph, log.slice(0, i + 1)).at(-1);
    if (value === undefined) continue;
    const key = JSON.stringify(value);
    if (open && open.key === key) continue;
    if (open) out.push({ ids: leafStateIds(graph, open.value), ms: log[i]!.at - open.at });
    open = { key, value, at: log[i]!.at };
  }
  if (open) out.push({ ids: leafStateIds(graph, open.value), ms: Math.max(0, end - open.at) });
  return out.map((s) => ({ ...s, ids: s.ids.filter((id) => id !== graph.root) }));
}

/** Nearest-rank percentile of sorted values; null for none. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
