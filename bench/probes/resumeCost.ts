// Probe: the worker's CPU per resume of a parked pipeline (issue 25's row "worker CPU per resume",
// target <= 100 us). Enqueues N pipelines parked on an `after` timer due at one instant, lets one
// in-process supervisor park them all, then measures this process's CPU (user + system) from the
// due time until every job is done, and Redis's CPU over the same span:
//
//   npm run build && node --import tsx --import ./bench/fromDist.mjs bench/probes/resumeCost.ts [N=20000] [c=100]
//   (add --cpu-prof --cpu-prof-dir=/tmp/prof for a profile; PROBE_WINDOW=1 prints the resume
//   phase's start and end on the profile's clock, in us, to cut the profile to it)
//
// The printed figures cover the resume phase only (this process's CPU includes the probe's own
// polling, a ZCARD every 20 ms).

import { loadavg } from 'node:os';
import { Client, RedisStore, Supervisor } from '../../src/index.js';
import { parkUntil } from '../machines.js';
import {
  MACHINIST_DELAYED_KEY,
  MACHINIST_DONE_KEY,
  MACHINIST_PREFIX,
  PARKED_NAME,
  QUEUE,
} from '../common.js';
import { commandStats, redisCpuSeconds, startRedis, type CommandStat } from '../redis.js';

const N = Number(process.argv[2] ?? 20_000);
const CONCURRENCY = Number(process.argv[3] ?? 100);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const redis = await startRedis();
const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
const client = new Client({ store, jobs: [parkUntil], queue: QUEUE });
const sup = new Supervisor({ store, jobs: [parkUntil], queues: [QUEUE], concurrency: CONCURRENCY });
try {
  // Due far enough ahead for all to park first (parks run at several thousand per second on an
  // idle host; PROBE_PARK_MS, ms per park allowed, raises it on a loaded one).
  const at = Date.now() + 5_000 + N * Number(process.env.PROBE_PARK_MS ?? 0.5);
  for (let done = 0; done < N; done += 1_000)
    await client.enqueueMany(
      Array.from({ length: Math.min(1_000, N - done) }, () => ({ machine: PARKED_NAME, input: { at } })),
    );
  await sup.start();
  while ((await redis.ctl.zcard(MACHINIST_DELAYED_KEY)) < N) {
    if (Date.now() > at)
      throw new Error(
        `${await redis.ctl.zcard(MACHINIST_DELAYED_KEY)} of ${N} parked by the due time: raise PROBE_PARK_MS`,
      );
    await sleep(50);
  }
  await sleep(Math.max(0, at - Date.now()));
  const doneBefore = await redis.ctl.zcard(MACHINIST_DONE_KEY);
  if (doneBefore > 0) console.log(`${doneBefore} done before the due time`);
  const cpu0 = process.cpuUsage();
  const redis0 = await redisCpuSeconds(redis.ctl);
  const calls = (m: Map<string, CommandStat>) => [...m.values()].reduce((a, c) => a + c.calls, 0);
  const stats0 = await commandStats(redis.ctl);
  const cmds0 = calls(stats0);
  const t0 = performance.now();
  while ((await redis.ctl.zcard(MACHINIST_DONE_KEY)) < N) await sleep(20);
  const wallMs = performance.now() - t0;
  if (process.env.PROBE_WINDOW)
    console.log(
      `window-us ${process.hrtime.bigint() / 1000n - BigInt(Math.round(wallMs * 1000))} ${process.hrtime.bigint() / 1000n}`,
    );
  const cpu = process.cpuUsage(cpu0);
  const redisUs = ((await redisCpuSeconds(redis.ctl)) - redis0) * 1e6;
  // Commands Redis ran, scripts' inner ones included (the probe's own ZCARDs too: ~50 a second).
  const stats1 = await commandStats(redis.ctl);
  const cmds = calls(stats1) - cmds0;
  // Which commands, per resume (the scripts' inner calls under their own names).
  const perCmd = [...stats1]
    .map(([name, c]) => [name, (c.calls - (stats0.get(name)?.calls ?? 0)) / N] as const)
    .filter(([, n]) => n >= 0.01)
    .sort((a, b) => b[1] - a[1]);
  // When the resumes finished, ms after the due time, at each tenth of them: a slow start (cold
  // code, promotion in one block) shows as early tenths that take longer than the late ones.
  const ends = (await redis.ctl.zrange(MACHINIST_DONE_KEY, '0', '-1', 'WITHSCORES'))
    .filter((_, i) => i % 2 === 1)
    .map((s) => Number(s) - at)
    .sort((a, b) => a - b);
  console.log(
    'finished by (ms after due) at 10%..100%: ' +
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((d) => ends[Math.ceil((d * ends.length) / 10) - 1]).join(' '),
  );
  console.log(perCmd.map(([name, n]) => `${name} ${n.toFixed(2)}`).join(', '));
  console.log(
    `${N} resumes in ${(wallMs / 1000).toFixed(2)} s (${Math.round(N / (wallMs / 1000))}/s); ` +
      `worker CPU ${((cpu.user + cpu.system) / N).toFixed(1)} us/resume; Redis CPU ${(redisUs / N).toFixed(1)} us/resume, ${(cmds / N).toFixed(2)} commands/resume ` +
      `(c=${CONCURRENCY}, ${process.version}, load ${loadavg()[0]!.toFixed(1)})`,
  );
} finally {
  await sup.stop({ graceMs: 1_000 });
  client.close();
  await store.close();
  await redis.stop();
}
