// Where an ingress entry's job may be made, on a partitioned queue (docs/ingress.md,
// docs/partitions.md). A drain is one script on the slot of the list the entry was pushed to
// (drainIngress-7.lua), so the job is made in that stored queue: the list decides, and an entry
// cannot be routed on to another partition. So an entry states where it belongs, and a drain
// refuses (broken, with the list to push to) one pushed elsewhere:
//   - `partitionKey`: the job belongs to partition partitionOfKey(key, N), as a Client enqueue
//     with that key (one key, one partition, in order). On a queue of one partition it is
//     ignored, as the Client ignores it; on a partitioned queue's own list it is refused (its
//     job would not be with the key's other jobs).
//   - `id`: a job id tells its partition (store/partitions.ts), so a producer's id on a
//     partition's list must name that partition (`<i>~...`, or hash there); on the queue's own
//     list any id but one naming a partition (`<i>~...`) is taken (the client finds it there:
//     client/locateJob.ts); an id `<i>~...` is taken on partition i's list only.
// A job made on partition i without a producer's id gets an id `<i>~<ULID>`, found with no lookup.

import { newJobId } from '../client/buildNewJob.js';
import {
  partitionedId,
  partitionOfId,
  partitionOfKey,
  partitionQueue,
  splitPartition,
} from '../store/partitions.js';

const NAMES_PARTITION = /^(\d{1,4})~/;

/** Why an entry may not become a job on stored queue `stored` (its queue has `n` partitions). */
export function misplacedEntry(
  stored: string,
  n: number,
  entry: { id?: string; partitionKey?: string },
  prefix = '<prefix>',
): string | undefined {
  const part = n > 1 ? splitPartition(stored) : undefined;
  const named = entry.id !== undefined ? NAMES_PARTITION.exec(entry.id) : null;
  if (named && (!part || part.index !== Number(named[1])))
    return `id '${entry.id}' names partition ${named[1]}: it is taken only from that partition's list of a queue of more partitions`;
  if (n <= 1) return undefined;
  const queue = part?.queue ?? stored;
  const listOf = (i: number) => `'${prefix}:{${partitionQueue(queue, i)}}:ingress'`;
  if (entry.partitionKey !== undefined) {
    const want = partitionOfKey(entry.partitionKey, n);
    if (part?.index !== want)
      return `partitionKey '${entry.partitionKey}' belongs to partition ${want} of queue '${queue}': push the entry to ${listOf(want)}`;
  }
  if (entry.id !== undefined && part) {
    const at = partitionOfId(entry.id, n);
    if (at !== part.index)
      return `id '${entry.id}' names partition ${at} of queue '${queue}', not ${part.index}: push the entry to ${listOf(at)} (or give the id the prefix '${part.index}~')`;
  }
  return undefined;
}

/** A new job id for an entry drained into stored queue `stored` (`n`: its queue's partitions). */
export function ingressJobId(stored: string, n: number): string {
  const part = n > 1 ? splitPartition(stored) : undefined;
  return part ? partitionedId(part.index, newJobId()) : newJobId();
}
