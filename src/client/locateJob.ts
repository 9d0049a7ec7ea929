// Which stored queue holds job `id` of a queue split into `n` partitions (docs/partitions.md).
// An id made for a partition (`<i>~...` with i < n, and the children of such a job) is in that
// partition: no read. Any other id may be in the partition it hashes to (a child named onto the
// queue from elsewhere, an ingress producer's id) or in the queue's own name: a job enqueued
// before the queue was partitioned (`machinist migrate-store --partition` leaves those where
// they are, store/partitionPopulated.ts), or by a client that read the count before the change.
// So: the hashed partition if it holds the job, else the own name if it does (one cheap read
// each, the second only when the first misses), else the hashed partition (whose JOB_NOT_FOUND
// the caller then gets, as before).

import type { JobRecords } from '../store/types.js';
import { partitionOfId, partitionQueue, splitPartition } from '../store/partitions.js';

const MADE_FOR_PARTITION = /^(\d{1,4})~/;

/** The stored queue of job `id` named with `queue`, a queue of `n` partitions. */
export async function locateJob(
  store: Pick<JobRecords, 'jobStatus'>,
  queue: string,
  id: string,
  n: number,
): Promise<string> {
  if (n <= 1 || splitPartition(queue)) return queue;
  const made = MADE_FOR_PARTITION.exec(id);
  const hashed = partitionQueue(queue, partitionOfId(id, n));
  if (made && Number(made[1]) < n) return hashed;
  if (await store.jobStatus(id, hashed)) return hashed;
  return (await store.jobStatus(id, queue)) ? queue : hashed;
}
