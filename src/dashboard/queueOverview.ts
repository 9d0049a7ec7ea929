// The queues overview: per queue, how many jobs each index holds now, and how many jobs finished
// done or failed in each of the last minutes. The minutes come from the queue's event stream
// (entry ids are Redis's clock in ms), so nothing is counted twice and nothing needs a counter
// of its own; the stream is capped, so a very busy queue reports what the cap still holds
// (`partial`).

import type { QueueCounts, StoreHandle, Registry, EventLog } from '../store/types.js';
import { groupQueues, sumCounts } from '../store/queueTotals.js';

/** The roles the overview reads: the clock, the queues and their counts, the event streams. */
type OverviewStore = StoreHandle & Registry & EventLog;

export interface QueueOverview {
  queue: string;
  counts: QueueCounts;
  /** Oldest minute first; `at` is the minute's start (ms since epoch, Redis's clock). */
  minutes: { at: number; done: number; failed: number }[];
  /** True when the stream did not reach back to the window's start (or the read cap was hit). */
  partial: boolean;
  /**
   * When the stream does not reach back to the window's start: the time of its oldest event
   * (a young queue, or a busy one whose stream was trimmed: the stream cannot tell which).
   */
  heldSince: number | null;
  /** The read cap was hit: the counts are of the first READ_CAP events only. */
  capped: boolean;
}

const MINUTE = 60_000;
/** Events read per queue per overview at most: 4 reads of 5,000. */
const READ_CAP = 20_000;

export async function queueOverview(
  store: OverviewStore,
  minutes = 15,
): Promise<{ now: number; queues: QueueOverview[] }> {
  const now = await store.now();
  // A partitioned queue is one row: its partitions' overviews merged (store/queueTotals.ts).
  const groups = groupQueues(await store.queues());
  const out = await Promise.all(
    [...groups].map(async ([queue, stored]) =>
      merged(queue, await Promise.all(stored.map((s) => overviewOf(store, s, now, minutes)))),
    ),
  );
  return { now, queues: out };
}

/** One queue's overview from its stored queues' (itself, or its partitions): summed, or ORed. */
function merged(queue: string, parts: QueueOverview[]): QueueOverview {
  if (parts.length === 1) return { ...parts[0]!, queue };
  const held = parts.map((p) => p.heldSince).filter((t): t is number => t !== null);
  return {
    queue,
    counts: sumCounts(parts.map((p) => p.counts)),
    minutes: parts[0]!.minutes.map((m, i) => ({
      at: m.at,
      done: parts.reduce((n, p) => n + p.minutes[i]!.done, 0),
      failed: parts.reduce((n, p) => n + p.minutes[i]!.failed, 0),
    })),
    partial: parts.some((p) => p.partial),
    heldSince: held.length > 0 ? Math.max(...held) : null,
    capped: parts.some((p) => p.capped),
  };
}

async function overviewOf(
  store: OverviewStore,
  queue: string,
  now: number,
  minutes: number,
): Promise<QueueOverview> {
  const firstMinute = Math.floor(now / MINUTE) * MINUTE - (minutes - 1) * MINUTE;
  const buckets = Array.from({ length: minutes }, (_, i) => ({
    at: firstMinute + i * MINUTE,
    done: 0,
    failed: 0,
  }));
  const [counts, oldest] = await Promise.all([store.counts(queue), oldestCursorTime(store, queue)]);
  let cursor = `${firstMinute - 1}-99999999`;
  let read = 0;
  const finished = new Set<string>();
  const heldSince = oldest !== null && oldest > firstMinute ? oldest : null;
  let capped = false;
  for (;;) {
    const batch = await store.readEvents(queue, cursor, 0, 5000);
    for (const e of batch) {
      const bucket = buckets[Math.floor((Number(e.cursor.split('-')[0]) - firstMinute) / MINUTE)];
      if (!bucket) continue;
      // A job enters a final status once; its id guards against a second entry naming it (a
      // failure's dead-letter entry, say).
      if (e.status !== 'done' && e.status !== 'failed') continue;
      if (finished.has(e.jobId)) continue;
      finished.add(e.jobId);
      bucket[e.status]++;
    }
    read += batch.length;
    if (batch.length < 5000) break;
    if (read >= READ_CAP) {
      capped = true;
      break;
    }
    cursor = batch[batch.length - 1]!.cursor;
  }
  return { queue, counts, minutes: buckets, partial: heldSince !== null || capped, heldSince, capped };
}

/** The time of the stream's oldest entry still held, or null when it is empty. */
async function oldestCursorTime(store: OverviewStore, queue: string): Promise<number | null> {
  const first = await store.readEvents(queue, '0-0', 0, 1);
  return first[0] ? Number(first[0].cursor.split('-')[0]) : null;
}
