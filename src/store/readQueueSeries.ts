// A queue's series read from its stored queues' minute tallies (src/store/queueSeries.ts): what
// GET /queues/:queue/series answers.

import type { StoreHandle } from './roles/StoreHandle.js';
import type { Registry } from './roles/Registry.js';
import type { MinuteTallies } from './roles/MinuteTallies.js';
import { groupQueues } from './queueTotals.js';
import {
  addTally,
  seriesMinutes,
  seriesOf,
  type MinuteTally,
  type QueueSeries,
  type SeriesWindow,
} from './queueSeries.js';

/**
 * The series of `queue` over `window`: a partitioned queue's stored queues (its own name and its
 * partitions) summed, as the counts are (store/queueTotals.ts).
 */
export async function readQueueSeries(
  store: StoreHandle & Pick<Registry, 'queues'> & MinuteTallies,
  queue: string,
  window: SeriesWindow,
): Promise<QueueSeries> {
  const now = await store.now();
  const { first, count, per } = seriesMinutes(window, now);
  const stored = groupQueues(await store.queues()).get(queue) ?? [queue];
  const each = await Promise.all(stored.map((s) => store.minuteTallies(s, first, count * per)));
  const summed = Array.from({ length: count * per }, (_, i) => {
    const t: MinuteTally = {};
    for (const e of each) addTally(t, e[i]);
    return t;
  });
  return seriesOf(queue, window, now, summed);
}
