// Partitioned queues (docs/partitions.md): a queue configured with N partitions is stored as N
// queues `<queue>#0` .. `<queue>#<N-1>`, each with its own hash tag, so on a Redis Cluster they
// spread over slots (and shards). '#' is not allowed in a queue's own name (keys.ts QUEUE_NAME),
// so a partition's name never collides with a queue's. Everything here is a pure function of
// the names, ids and keys: every client and supervisor that knows N routes a job alike.
//
// A job id tells its partition, so get, cancel, send and the HTTP API reach a job with no lookup:
//   - an id the client generates for a partitioned queue is `<i>~<ULID>`, i its partition;
//   - any other id (a fan-out child's `<parentId>.<group>.<n>`, an ingress producer's) is in
//     partition `<i>` when it starts with `<i>~` and i < N, else in FNV-1a(id) mod N.

/** Most partitions a queue may have. */
export const MAX_PARTITIONS = 1024;

const PARTITION = /^(.+)#(\d{1,4})$/;
const ID_PARTITION = /^(\d{1,4})~/;

/** The stored queue of partition `index` of `queue`. */
export function partitionQueue(queue: string, index: number): string {
  return `${queue}#${index}`;
}

/** A partition's queue and index, or undefined for a queue's own name. */
export function splitPartition(name: string): { queue: string; index: number } | undefined {
  const m = PARTITION.exec(name);
  return m ? { queue: m[1]!, index: Number(m[2]) } : undefined;
}

/** The queue a stored queue belongs to: its own name, or the queue whose partition it is. */
export function logicalQueue(name: string): string {
  return splitPartition(name)?.queue ?? name;
}

/** 32-bit FNV-1a of a string's UTF-16 code units: small, fast, and the same in every process. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The partition of job `id` in a queue of `n` partitions (see the file's head). */
export function partitionOfId(id: string, n: number): number {
  const m = ID_PARTITION.exec(id);
  if (m && Number(m[1]) < n) return Number(m[1]);
  return fnv1a(id) % n;
}

/** The partition of a partition key or idempotency key: one key, one partition. */
export function partitionOfKey(key: string, n: number): number {
  return fnv1a(key) % n;
}

/** A generated id that names its partition. */
export function partitionedId(index: number, ulid: string): string {
  return `${index}~${ulid}`;
}

/**
 * Every stored queue: each queue `queues()` lists, and for a partitioned one its partitions too
 * (a partition's jobs are stored under `q#<i>`, which `queues()` does not list). For the reads
 * that walk every queue: the search (search/searchPages.ts) and the fleet's reaped jobs.
 */
export async function storedQueues(registry: {
  queues(): Promise<string[]>;
  partitions(queue: string): Promise<number>;
}): Promise<string[]> {
  const out: string[] = [];
  for (const queue of await registry.queues()) {
    out.push(queue);
    const n = await registry.partitions(queue);
    for (let i = 0; n > 1 && i < n; i++) out.push(partitionQueue(queue, i));
  }
  return out;
}
