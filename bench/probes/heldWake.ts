// Probe: the worker CPU a held job's wake and done take (THE EARLY LEASE; workload 15's drain is
// bound by it). One Supervisor on a private redis-server holds N pipelines of workload 15 (parked
// on an `after` timer, claimed early), all due at one instant; from that instant until the last
// is done, this process's CPU (user + system) and its GC pauses, per job. The Redis side is not
// counted (commitOps.ts, resumeParts.ts measure that).
//
//   npm run build && node --expose-gc --import tsx --import ./bench/fromDist.mjs bench/probes/heldWake.ts [N=20000] [PROFILE]
//
// With PROFILE (a path), the drain's CPU profile is written there (.cpuprofile: open it in
// Chrome's DevTools, or read its self times).

import { PerformanceObserver } from 'node:perf_hooks';
import { heldScenario, sleep } from './heldScenario.js';
import { profileWindow } from './profileWindow.js';

const N = Number(process.argv[2] ?? 20_000);
const PROFILE = process.argv[3];

const s = await heldScenario({ prefix: 'wake', leadMs: 900_000, holdMax: N, warmMs: 500, level: 'error' });
try {
  // Due once all are held: ~1 s per 10k held on this host, with room to spare.
  const at = Date.now() + 5000 + N / 2;
  await s.enqueueDue(N, at);
  const held = await s.settled(N);
  if (Date.now() >= at - 200) throw new Error('held too late: raise the due time');
  (globalThis as { gc?: () => void }).gc?.();
  await sleep(at - Date.now() - 100);
  let gcMs = 0;
  let gcs = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration;
      gcs++;
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  const profiled = await profileWindow(PROFILE);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // Done once nothing is active (held or running); polled on the supervisor's own connection's
  // store, a few calls a second.
  while ((await s.active()) > 0) await sleep(20);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await profiled();
  await sleep(50);
  obs.disconnect();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    `${held} held of ${N}; from 100 ms before due to all done: cpu ${Math.round(cpuMs)} ms ` +
      `(${Math.round((cpuMs * 1000) / held)} us a job), gc ${Math.round(gcMs)} ms in ${gcs} pauses, ` +
      `wall ${Math.round(wallMs)} ms (node ${process.version})`,
  );
} finally {
  await s.stop();
}
