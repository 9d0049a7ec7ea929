// Probe: the worker CPU a park costs (issue 25, round thirteen). One Supervisor on a private
// redis-server (no early lease) claims N of workload 15's pipelines, runs each to its `after`
// timer (an hour away, beyond any lead) and parks it; this process's CPU (user + system) from the
// end of the enqueue until all are parked, per job: a fresh claim, the run's start and its park.
// The enqueue (this process too) is counted apart.
//
//   npm run build && node --expose-gc --import tsx --import ./bench/fromDist.mjs bench/probes/parkCost.ts [N=20000]

import { heldScenario } from './heldScenario.js';

const N = Number(process.argv[2] ?? 20_000);
const usOf = (c: NodeJS.CpuUsage) => (c.user + c.system) / N;

const s = await heldScenario({ prefix: 'pc', leadMs: 0, holdMax: 0, warmMs: 500, level: 'error' });
try {
  const t0 = Date.now();
  const c0 = process.cpuUsage();
  await s.enqueueDue(N, Date.now() + 3_600_000);
  const enqueued = process.cpuUsage(c0);
  await s.settled(N, true);
  const all = process.cpuUsage(c0);
  console.log(
    `parked ${N} in ${Date.now() - t0} ms; cpu after the enqueue ${(usOf(all) - usOf(enqueued)).toFixed(1)} us a job ` +
      `(the enqueue ${usOf(enqueued).toFixed(1)}) (node ${process.version})`,
  );
} finally {
  await s.stop();
}
