// The queues a store holds, as their users name them: a partitioned queue (docs/partitions.md)
// is ONE queue whose counts are summed over its partitions (and its own name, which holds the
// jobs enqueued before it was partitioned), with each partition's counts beside. What lists or
// counts queues (the CLI's stats, GET /queues, the dashboard, the metrics) reads them here.

import { COUNTED, type QueueCounts, type Registry } from './types.js';
import { logicalQueue } from './partitions.js';

export interface QueueTotal {
  /** Summed over the stored queues below. */
  counts: QueueCounts;
  /** Each stored queue's own counts: the queue's name and, when partitioned, `<queue>#<i>`. */
  parts: Map<string, QueueCounts>;
}

/** Stored queue names grouped by the queue they belong to, each group sorted. */
export function groupQueues(names: readonly string[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const name of [...names].sort()) {
    const q = logicalQueue(name);
    const g = groups.get(q);
    if (g) g.push(name);
    else groups.set(q, [name]);
  }
  return groups;
}

export function sumCounts(list: readonly QueueCounts[]): QueueCounts {
  const sum = Object.fromEntries(COUNTED.map((k) => [k, 0])) as QueueCounts;
  for (const c of list) for (const k of COUNTED) sum[k] += c[k];
  return sum;
}

/** Every queue's totals (or only `queue`'s), by the queue's name, sorted. */
export async function queueTotals(
  store: Pick<Registry, 'queues' | 'counts'>,
  queue?: string,
): Promise<Map<string, QueueTotal>> {
  const names = await store.queues();
  const groups = groupQueues(
    queue === undefined ? names : [queue, ...names.filter((n) => logicalQueue(n) === queue)],
  );
  const out = new Map<string, QueueTotal>();
  for (const [name, stored] of groups) {
    const unique = [...new Set(stored)];
    const counts = await Promise.all(unique.map((s) => store.counts(s)));
    out.set(name, { counts: sumCounts(counts), parts: new Map(unique.map((s, i) => [s, counts[i]!])) });
  }
  return out;
}
