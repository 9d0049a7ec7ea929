// Partitioning a queue that already holds jobs (`machinist migrate-store --partition <queue>
// --partitions N`, docs/partitions.md). An online drain: the queue is partitioned at once for new
// work, and the jobs it held stay in its own name, served until they have all ended. Client's
// configureQueue refuses this (PARTITIONS_IN_USE); this step is the one that may do it.
//
// The rules it holds, and where each is enforced:
// - NO JOB MOVES, so none is lost or run twice: every job stays in the stored queue it was
//   written to; a claim is one script on one stored queue, as before. Nothing here writes a job.
// - THE OWN NAME STAYS SERVED: a supervisor serving `q` serves `q` and every partition `q#i`
//   (Supervisor.servedLanes), so what `q` holds (queued, delayed, parked, running) is claimed,
//   woken and finished there; a running job writes to the stored queue its record names, and a
//   supervisor's restart requeues it there. A supervisor reads the count at start(): one started
//   before the switch serves `q` only, and new work waits in the partitions until it restarts.
// - IDS STILL REACH THEIR JOB: an id made before the switch is not `<i>~...`, and the client
//   looks for such an id in its hashed partition, then in the own name (client/locateJob.ts).
// - IDEMPOTENCY KEYS FOLLOW: each live key of `q` is copied (same job, same remaining TTL) to the
//   partition it routes to (partitionOfKey), before and again after the count is written (the
//   second pass takes keys set meanwhile), so a repeated enqueue meets the job made before.
// - PARTITIONS START EMPTY: refused with PARTITIONS_IN_USE while a partition (of the count in
//   force or of the one asked) holds a job: those ids would stop naming where they are.
// - THE DRAIN IS TOLD: the report gives what the own name still holds; `drained` once no job
//   in it is unfinished (queued, delayed, active, waiting). Run it again to follow the drain.

import { PartitionsInUseError, ValidationError } from '../errors.js';
import { assertQueueName } from './keys.js';
import { MAX_PARTITIONS, partitionOfKey, partitionQueue, splitPartition } from './partitions.js';
import type { QueueCounts, Registry } from './types.js';

export interface PartitionReport {
  queue: string;
  /** The count in force before this run (1: not partitioned). */
  from: number;
  to: number;
  /** This run wrote the count (false: it was in force already, or a dry run). */
  switched: boolean;
  dryRun: boolean;
  /** Idempotency keys handed to the partitions (null on a dry run). */
  idempotencyKeys: number | null;
  /** What the queue's own name still holds: the drain's progress. */
  left: QueueCounts;
  /** No unfinished job is left in the own name (finished records stay until they expire). */
  drained: boolean;
}

export async function partitionPopulated(
  store: Pick<Registry, 'partitions' | 'setPartitions' | 'counts' | 'copyIdempotencyKeys'>,
  queue: string,
  partitions: number,
  options: { dryRun: boolean },
): Promise<PartitionReport> {
  assertQueueName(queue);
  if (splitPartition(queue))
    throw new ValidationError(`'${queue}' names a partition: name the queue`, { field: 'queue', queue });
  if (!Number.isInteger(partitions) || partitions < 2 || partitions > MAX_PARTITIONS)
    throw new ValidationError(
      `partitions must be an integer from 2 to ${MAX_PARTITIONS} (got ${partitions})`,
      { field: 'partitions', queue },
    );
  const from = await store.partitions(queue);
  const report = async (switched: boolean, idempotencyKeys: number | null): Promise<PartitionReport> => {
    const left = await store.counts(queue);
    const drained = left.queued + left.delayed + left.active + left.waiting === 0;
    return { queue, from, to: partitions, switched, dryRun: options.dryRun, idempotencyKeys, left, drained };
  };
  if (from === partitions) return report(false, null);
  // PARTITIONS START EMPTY.
  for (let i = 0; i < Math.max(from > 1 ? from : 0, partitions); i++) {
    const counts = await store.counts(partitionQueue(queue, i));
    if (Object.values(counts).some((c) => c > 0)) throw new PartitionsInUseError(queue, from, partitions);
  }
  if (options.dryRun) return report(false, null);
  // IDEMPOTENCY KEYS FOLLOW: before the switch, and again after it for the keys set meanwhile.
  const route = (key: string) => partitionQueue(queue, partitionOfKey(key, partitions));
  let keys = await store.copyIdempotencyKeys(queue, route);
  await store.setPartitions(queue, partitions);
  keys += await store.copyIdempotencyKeys(queue, route);
  return report(true, keys);
}
