// Probe: what one plain no-op job (the bench's c=100 throughput row) costs the WORKER's CPU, in
// process, apart from Redis's. Each round enqueues N no-op jobs (not counted), then a fresh
// in-process supervisor processes them; the figures cover the processing span only: this
// process's CPU (user + system), the time V8's garbage collector ran in it, Redis's CPU and
// commands per job. Later rounds run warm code, as a long-lived worker does: read those.
// Old and new side by side: a `git worktree add` of the old commit (node_modules linked, built),
// this file copied into it, runs alternated between the two trees.
//
//   npm run build && node --import tsx --import ./bench/fromDist.mjs bench/probes/plainCost.ts [N=20000] [rounds=3] [c=100]
//   (add --cpu-prof --cpu-prof-dir=/tmp/prof for a profile; PROBE_WINDOW=1 prints each round's
//   processing span on the profile's clock, in us, to cut the profile to it)
//
// PROBE_RECORD=minimal runs the jobs with `record: 'minimal'` (workload 18's row). The worker CPU
// includes the probe's own polling (a ZCARD every 20 ms, ~50 a second).

import { loadavg } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { Client, RedisStore, Supervisor, defineJob } from '../../src/index.js';
import { JOB_NAME, MACHINIST_DONE_KEY, MACHINIST_PREFIX, QUEUE } from '../common.js';
import {
  commandStats,
  machinistUnfinished,
  redisCpuSeconds,
  startRedis,
  type CommandStat,
} from '../redis.js';

const N = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const CONCURRENCY = Number(process.argv[4] ?? 100);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let gcMs = 0;
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
});
gcObserver.observe({ entryTypes: ['gc'] });

const minimal = process.env.PROBE_RECORD === 'minimal';
const noop = defineJob({
  name: JOB_NAME,
  work: async () => undefined,
  ...(minimal ? { record: 'minimal' as const } : {}),
});
const redis = await startRedis();
const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
const client = new Client({ store, jobs: [noop], queue: QUEUE });
// The bench worker's lease settings (bench/worker.ts). One supervisor per round, started after
// the enqueue so that the span measures processing only; the code stays warm across rounds.
const newSupervisor = () =>
  new Supervisor({
    store,
    jobs: [noop],
    queues: [QUEUE],
    concurrency: CONCURRENCY,
    leaseMs: 30_000,
    heartbeatMs: 10_000,
    reaperIntervalMs: 5_000,
  });
let sup: Supervisor | undefined;
const calls = (m: Map<string, CommandStat>) => [...m.values()].reduce((a, c) => a + c.calls, 0);
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const doneBefore = await redis.ctl.zcard(MACHINIST_DONE_KEY);
    for (let done = 0; done < N; done += 1_000)
      await client.enqueueMany(
        Array.from({ length: Math.min(1_000, N - done) }, () => ({ machine: JOB_NAME, input: {} })),
      );
    const stats0 = await commandStats(redis.ctl);
    const redis0 = await redisCpuSeconds(redis.ctl);
    const gc0 = gcMs;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const us0 = process.hrtime.bigint() / 1000n;
    sup = newSupervisor();
    await sup.start();
    // A minimal record leaves no done index: the round is over when nothing is queued or running.
    const over = minimal
      ? async () => (await machinistUnfinished(redis.ctl)) === 0
      : async () => (await redis.ctl.zcard(MACHINIST_DONE_KEY)) >= doneBefore + N;
    while (!(await over())) await sleep(20);
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const us1 = process.hrtime.bigint() / 1000n;
    const redisUs = ((await redisCpuSeconds(redis.ctl)) - redis0) * 1e6;
    const stats1 = await commandStats(redis.ctl);
    const cmds = calls(stats1) - calls(stats0);
    await sup.stop({ graceMs: 1_000 });
    sup = undefined;
    // The GC observer reports after the fact: give it a turn of the loop.
    await sleep(0);
    if (process.env.PROBE_WINDOW) console.log(`window-us ${us0} ${us1}`);
    console.log(
      `round ${round}: ${N} jobs in ${(wallMs / 1000).toFixed(2)} s (${Math.round(N / (wallMs / 1000))}/s); ` +
        `worker CPU ${((cpu.user + cpu.system) / N).toFixed(2)} us/job (GC ${(((gcMs - gc0) * 1000) / N).toFixed(2)}); ` +
        `Redis CPU ${(redisUs / N).toFixed(2)} us/job, ${(cmds / N).toFixed(2)} commands/job ` +
        `(c=${CONCURRENCY}, ${process.version}, load ${loadavg()[0]!.toFixed(1)})`,
    );
    if (process.env.PROBE_COMMANDS)
      for (const [name, c] of stats1) {
        const n = c.calls - (stats0.get(name)?.calls ?? 0);
        if (n > 0) console.log(`  ${name.padEnd(24)} ${n} calls, ${(n / N).toFixed(3)} a job`);
      }
  }
} finally {
  gcObserver.disconnect();
  await sup?.stop({ graceMs: 1_000 });
  client.close();
  await store.close();
  await redis.stop();
}
