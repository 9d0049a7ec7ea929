// Probe: what one 3-step pipeline whose steps yield (every checkpoint written: workload 6b) costs
// the worker and Redis. Enqueues N, runs one in-process supervisor until all are done, and prints
// this process's CPU (user + system), Redis's CPU and commands per job, and the top commands:
//
//   npm run build && node --import tsx --import ./bench/fromDist.mjs bench/probes/pipelineCost.ts [N=10000] [c=100]
//   (PROFILE=<file.cpuprofile>: a CPU profile of the measured window only, read by bench/profile.ts)
//
// The worker CPU includes the probe's own polling (a ZCARD every 20 ms); the enqueue is not counted.

import { loadavg } from 'node:os';
import { Client, RedisStore, Supervisor } from '../../src/index.js';
import { threeStepsYield } from '../machines.js';
import { MACHINIST_DONE_KEY, MACHINIST_PREFIX, PIPELINE_YIELD_NAME, QUEUE } from '../common.js';
import { commandStats, redisCpuSeconds, startRedis, type CommandStat } from '../redis.js';
import { profileWindow } from './profileWindow.js';

const N = Number(process.argv[2] ?? 10_000);
const CONCURRENCY = Number(process.argv[3] ?? 100);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const redis = await startRedis();
const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
const client = new Client({ store, jobs: [threeStepsYield], queue: QUEUE });
const sup = new Supervisor({ store, jobs: [threeStepsYield], queues: [QUEUE], concurrency: CONCURRENCY });
try {
  for (let done = 0; done < N; done += 1_000)
    await client.enqueueMany(
      Array.from({ length: Math.min(1_000, N - done) }, () => ({ machine: PIPELINE_YIELD_NAME, input: {} })),
    );
  const stats0 = await commandStats(redis.ctl);
  const cpu0 = process.cpuUsage();
  const redis0 = await redisCpuSeconds(redis.ctl);
  const profiled = await profileWindow(process.env.PROFILE);
  const t0 = performance.now();
  await sup.start();
  while ((await redis.ctl.zcard(MACHINIST_DONE_KEY)) < N) await sleep(20);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await profiled();
  const redisUs = ((await redisCpuSeconds(redis.ctl)) - redis0) * 1e6;
  const stats1 = await commandStats(redis.ctl);
  const delta = [...stats1.entries()].map(([name, c]): [string, CommandStat] => {
    const b = stats0.get(name);
    return [name, { calls: c.calls - (b?.calls ?? 0), usec: c.usec - (b?.usec ?? 0) }];
  });
  const cmds = delta.reduce((a, [, c]) => a + c.calls, 0);
  console.log(
    `${N} pipelines in ${(wallMs / 1000).toFixed(2)} s (${Math.round(N / (wallMs / 1000))}/s); ` +
      `worker CPU ${((cpu.user + cpu.system) / N).toFixed(1)} us/job; Redis CPU ${(redisUs / N).toFixed(1)} us/job, ${(cmds / N).toFixed(2)} commands/job ` +
      `(c=${CONCURRENCY}, ${process.version}, load ${loadavg()[0]!.toFixed(1)})`,
  );
  for (const [name, c] of delta.sort((a, b) => b[1].usec - a[1].usec).slice(0, 12))
    console.log(
      `  ${name.padEnd(24)} ${(c.calls / N).toFixed(2)} calls/job ${(c.usec / N).toFixed(2)} usec/job`,
    );
} finally {
  await sup.stop({ graceMs: 1_000 });
  client.close();
  await store.close();
  await redis.stop();
}
