// Probe: what one ULID costs to make, each in a new millisecond (16 fresh random characters, as
// an id made by a single enqueue or send is): the ulid package's own source of randomness
// (crypto.getRandomValues a character) against src/runtime/ulids.ts's pooled bytes.
//
//   node --import tsx bench/probes/ulidCost.ts [N=20000]

import { monotonicFactory } from 'ulid';
import { ulidFactory } from '../../src/runtime/ulids.js';

const N = Number(process.argv[2] ?? 20_000);
const base = Date.now();
for (let round = 1; round <= 3; round++)
  for (const [label, make] of [
    ['ulid package', monotonicFactory()],
    ['pooled', ulidFactory()],
  ] as const) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) make(base + round * N + i);
    console.log(`round ${round}, ${label}: ${(((performance.now() - t0) * 1000) / N).toFixed(2)} us an id`);
  }
