// Probe: what a 3-step pipeline whose middle step has a timeout (`after: { 30000: 'timedOut' }`
// beside its invoke; every step yields) costs the worker, compiled and on XState actors
// (`compile: false`). Enqueues N of one, runs one in-process supervisor until all are done, and
// prints this process's CPU (user + system) per job; then the other:
//
//   node --import tsx bench/probes/stepTimeoutCost.ts [N=3000] [c=100] [rounds=2]
//
// The worker CPU includes the probe's own polling (a ZCARD every 20 ms); the enqueue is not counted.

import { loadavg } from 'node:os';
import { assign, setup } from 'xstate';
import { Client, RedisStore, Supervisor, definePipeline, step } from '../../src/index.js';
import { startRedis } from '../redis.js';
import { MACHINIST_DONE_KEY, MACHINIST_PREFIX, QUEUE } from '../common.js';

const N = Number(process.argv[2] ?? 3000);
const CONCURRENCY = Number(process.argv[3] ?? 100);
const ROUNDS = Number(process.argv[4] ?? 2);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const yielding = step(() => new Promise<number>((resolve) => setImmediate(() => resolve(1))));

function timedPipeline(name: string, compile: boolean) {
  return definePipeline({
    name,
    compile,
    machine: setup({ actors: { s: yielding }, types: { context: {} as { n: number } } }).createMachine({
      initial: 'one',
      context: { n: 0 },
      states: {
        one: { invoke: { id: 'one', src: 's', onDone: 'two' } },
        two: {
          invoke: { id: 'two', src: 's', onDone: { target: 'three', actions: assign({ n: 1 }) } },
          after: { 30000: 'timedOut' },
        },
        three: { invoke: { id: 'three', src: 's', onDone: 'done' } },
        timedOut: { type: 'final' },
        done: { type: 'final' },
      },
    }),
  });
}

const redis = await startRedis();
try {
  for (let round = 1; round <= ROUNDS; round++)
    for (const compile of [true, false]) {
      await redis.ctl.flushall();
      const name = `timed${compile ? 'C' : 'X'}`;
      const def = timedPipeline(name, compile);
      if (compile && !def.compiled) throw new Error('the machine did not compile');
      const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
      const client = new Client({ store, jobs: [def], queue: QUEUE });
      const sup = new Supervisor({ store, jobs: [def], queues: [QUEUE], concurrency: CONCURRENCY });
      for (let done = 0; done < N; done += 1_000)
        await client.enqueueMany(
          Array.from({ length: Math.min(1_000, N - done) }, () => ({ machine: name, input: {} })),
        );
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await sup.start();
      while ((await redis.ctl.zcard(MACHINIST_DONE_KEY)) < N) await sleep(20);
      const wallMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      await sup.stop({ graceMs: 1000 });
      client.close();
      const us = (cpu.user + cpu.system) / N;
      console.log(
        `round ${round} ${compile ? 'compiled' : 'XState  '}: ${N} pipelines in ${(wallMs / 1000).toFixed(2)} s; ` +
          `worker CPU ${us.toFixed(1)} us/job (c=${CONCURRENCY}, ${process.version}, load ${loadavg()[0]!.toFixed(1)})`,
      );
    }
} finally {
  await redis.stop();
}
