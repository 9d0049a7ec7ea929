// Probe: the worker's CPU per resume of a parked pipeline, by the shape of its wait state and the
// runtime that resumes it (compiled, or XState actors with compile: false). Enqueues N pipelines
// that park in state `parked`, stops the supervisor once all have parked, wakes them all (their
// timer comes due, or an event is sent to each), then starts the supervisor again and measures
// this process's CPU (user + system) until every job is done. The wake happens while no worker
// runs, so the figure holds the resumes only (not the client's sends), plus one supervisor start.
//
//   npm run build && node --import tsx --import ./bench/fromDist.mjs bench/probes/waitResumeCost.ts \
//     SHAPE RUNTIME [N=10000] [c=100]
//
// SHAPE: after1    after { due }                       (resumed by its timer)
//        delays    after { 3600000, due }              (two timers stored; resumed by `due`)
//        event     after { 3600000 }, on { GO }        (resumed by a GO sent to it)
//        eventOnly on { GO }                           (parked with no wake time; resumed by GO)
// RUNTIME: compiled | xstate

import { loadavg } from 'node:os';
import { Client, RedisStore, Supervisor } from '../../src/index.js';
import { parkedPipeline } from '../machines.js';
import { MACHINIST_DONE_KEY, MACHINIST_PREFIX, QUEUE } from '../common.js';
import { machinistUnfinished, startRedis } from '../redis.js';

const SHAPES = {
  after1: { after: { due: 'end' } },
  delays: { after: { 3600000: 'end', due: 'end' } },
  event: { after: { 3600000: 'end' }, on: { GO: 'end' } },
  eventOnly: { on: { GO: 'end' } },
} as const;
type Shape = keyof typeof SHAPES;

const shape = process.argv[2] as Shape;
const runtime = process.argv[3];
if (!(shape in SHAPES) || (runtime !== 'compiled' && runtime !== 'xstate'))
  throw new Error('usage: waitResumeCost.ts after1|delays|event|eventOnly compiled|xstate [N] [c]');
const N = Number(process.argv[4] ?? 10_000);
const CONCURRENCY = Number(process.argv[5] ?? 100);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NAME = 'waitResume' as const;

const def = parkedPipeline(NAME, SHAPES[shape], runtime === 'compiled');
if (Boolean(def.compiled) !== (runtime === 'compiled')) throw new Error(`${shape} does not compile`);

const redis = await startRedis();
const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
const client = new Client({ store, jobs: [def], queue: QUEUE });
const sup = new Supervisor({ store, jobs: [def], queues: [QUEUE], concurrency: CONCURRENCY });
try {
  const byTimer = shape === 'after1' || shape === 'delays';
  // Due after all have parked (PROBE_PARK_MS: ms per park allowed, for a loaded host).
  const at = byTimer ? Date.now() + 3_000 + N * Number(process.env.PROBE_PARK_MS ?? 0.5) : 0;
  const ids: string[] = [];
  for (let done = 0; done < N; done += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, N - done) }, () => ({ machine: NAME, input: { at } }));
    ids.push(...(await client.enqueueMany(batch)));
  }
  await sup.start();
  // Parked: none queued, none running (a parked job is in `delayed`, or in no index at all).
  while ((await machinistUnfinished(redis.ctl)) > 0) {
    if (byTimer && Date.now() > at) throw new Error('not all parked by the due time: raise PROBE_PARK_MS');
    await sleep(50);
  }
  await sup.stop({ graceMs: 1_000 });
  if ((await redis.ctl.zcard(MACHINIST_DONE_KEY)) > 0) throw new Error('a job ended before its wake');
  if (byTimer) await sleep(Math.max(0, at - Date.now()) + 100);
  else for (const id of ids) await client.send(id, { type: 'GO' });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await sup.start();
  while ((await redis.ctl.zcard(MACHINIST_DONE_KEY)) < N) await sleep(20);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `${shape} ${runtime}: ${N} resumes in ${(wallMs / 1000).toFixed(2)} s; ` +
      `worker CPU ${((cpu.user + cpu.system) / N).toFixed(1)} us/resume ` +
      `(c=${CONCURRENCY}, ${process.version}, load ${loadavg()[0]!.toFixed(1)})`,
  );
} finally {
  await sup.stop({ graceMs: 1_000 });
  client.close();
  await store.close();
  await redis.stop();
}
