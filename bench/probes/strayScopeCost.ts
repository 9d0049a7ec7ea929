// Probe: what running code inside an AsyncLocalStorage scope costs per `await` (the scope each
// attempt runs in when isolateStrayErrors is on: src/supervisor/strayErrors.ts). Enabling a
// scope is process-wide and cannot be undone, so each side runs in a process of its own:
//
//   node bench/probes/strayScopeCost.ts off; node bench/probes/strayScopeCost.ts on
//   (under tsx: node --import tsx ...)
//
// Prints the median of 5 runs of 1e6 awaits, with the Node version and the host's load.

import { AsyncLocalStorage } from 'node:async_hooks';
import { loadavg } from 'node:os';

const AWAITS = 1_000_000;
const scope = new AsyncLocalStorage<{ run: number }>();

async function step(i: number): Promise<number> {
  await Promise.resolve();
  return i;
}

async function work(): Promise<number> {
  let s = 0;
  for (let i = 0; i < AWAITS; i++) s += await step(i);
  return s;
}

const on = process.argv[2] === 'on';
const runs: number[] = [];
for (let r = 0; r < 5; r++) {
  const t = performance.now();
  await (on ? scope.run({ run: r }, work) : work());
  runs.push(performance.now() - t);
}
runs.sort((a, b) => a - b);
console.log(
  `${process.version} scope ${on ? 'on ' : 'off'}: ${(runs[2]! / 1000).toFixed(3)} us per await ` +
    `(median of 5 x ${AWAITS}; load ${loadavg()[0]!.toFixed(1)})`,
);
