// Probe: the worker heap a held job costs (THE EARLY LEASE, issue 25: "the memory of 25k held runs
// is unmeasured"). One Supervisor on a private redis-server holds N pipelines of workload 15
// (parked on an `after` timer, claimed early, waiting in memory for it); the heap after a full GC
// with all N held, against the same process with none held, per job. The same with the lead off
// (the jobs parked in Redis) says what a parked job leaves in the worker: nothing, it should be.
//
//   npm run build && node --expose-gc --import tsx --import ./bench/fromDist.mjs bench/probes/heldMemory.ts [N=20000] [DIR]
//
// With DIR, the held run (lead on) also writes heap snapshots there, before (base) and with all
// N held (held): what one held job retains, by object and closure (bench/heapDiff.mjs).

import { writeHeapSnapshot } from 'node:v8';
import { join } from 'node:path';
import { heldScenario, sleep } from './heldScenario.js';

const N = Number(process.argv[2] ?? 20_000);
const SNAPSHOTS = process.argv[3];
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

/** The heap after full GCs (ms to settle first). */
async function heapAfterGc(): Promise<number> {
  await sleep(200);
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage().heapUsed;
}

async function measure(leadMs: number): Promise<{ perJob: number; held: number }> {
  const s = await heldScenario({ prefix: 'held', leadMs, holdMax: N, warmMs: 1000, level: 'warn' });
  try {
    const base = await heapAfterGc();
    if (SNAPSHOTS && leadMs > 0) writeHeapSnapshot(join(SNAPSHOTS, 'base.heapsnapshot'));
    // Due long after all are held (or parked): the lead covers it.
    await s.enqueueDue(N, Date.now() + 600_000);
    const held = await s.settled(N, leadMs === 0);
    const after = await heapAfterGc();
    if (SNAPSHOTS && leadMs > 0) writeHeapSnapshot(join(SNAPSHOTS, 'held.heapsnapshot'));
    return { perJob: (after - base) / N, held };
  } finally {
    await s.stop();
  }
}

for (const lead of [0, 900_000]) {
  const r = await measure(lead);
  console.log(
    `lead ${lead} ms: ${r.held} held of ${N}; heap ${Math.round(r.perJob).toLocaleString('en-US')} B a job (node ${process.version})`,
  );
}
