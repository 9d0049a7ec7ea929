// ULIDs (job ids, event ids, result watchers' ids, worker ids), their randomness drawn from one
// pool of crypto random bytes. The ulid package's own source of randomness asks
// crypto.getRandomValues for one byte per character: 16 calls an id, ~70-90 us an id on this
// project's 2-core CI host (bench/RESULTS.md, round thirteen), where a whole Client.send is a few
// hundred. The bytes are the same crypto randomness, fetched 4 KiB at a time.

import { randomFillSync } from 'node:crypto';
import { monotonicFactory, type ULIDFactory } from 'ulid';

const POOL = new Uint8Array(4096);
let next = POOL.length;

/** ulid's PRNG: the next pooled random byte as a fraction in [0, 1) (byte / 256, as ulid's own). */
export function pooledRandom(): number {
  if (next === POOL.length) {
    randomFillSync(POOL);
    next = 0;
  }
  return POOL[next++]! / 256;
}

/** A ULID factory on the pooled bytes, monotonic within a millisecond (ulid's monotonicFactory). */
export function ulidFactory(): ULIDFactory {
  return monotonicFactory(pooledRandom);
}
