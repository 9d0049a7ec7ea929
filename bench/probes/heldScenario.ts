// The scenario of the held-job probes (heldMemory.ts, heldWake.ts): one Supervisor on a private
// redis-server serving workload 15's pipeline (parked on an `after` timer), with THE EARLY LEASE's
// lead as given; N of them enqueued due at one instant, and a wait until they are all held (or
// parked). BENCH_HELD_RUNTIME=xstate runs the pipeline on XState actors (default: compiled).

import { pino } from 'pino';
import { Client, RedisStore, Supervisor } from '../../src/index.js';
import { spawnRedisServer } from '../../examples/privateRedis.js';
import { parkUntilOn } from '../machines.js';
import { PARKED_NAME } from '../common.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface HeldScenario {
  store: RedisStore;
  /** Enqueues `n` pipelines due at `at` (ms), 1,000 a call. */
  enqueueDue(n: number, at: number): Promise<void>;
  /** Waits (up to 60 s) until `n` jobs are held (in `active`, claimed early), or parked (in
   * `delayed`) when `parked`; returns how many are held then. */
  settled(n: number, parked?: boolean): Promise<number>;
  /** How many jobs are in `active` (held or running). */
  active(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the supervisor and warms its code paths with one job due `warmMs` on (done by the end). */
export async function heldScenario(o: {
  prefix: string;
  leadMs: number;
  holdMax: number;
  warmMs: number;
  level: 'warn' | 'error';
}): Promise<HeldScenario> {
  const parkUntil = parkUntilOn(process.env.BENCH_HELD_RUNTIME === 'xstate' ? false : undefined);
  if (process.env.BENCH_HELD_RUNTIME === 'xstate' && parkUntil.compiled)
    throw new Error('BENCH_HELD_RUNTIME=xstate: the pipeline compiled');
  const server = await spawnRedisServer();
  const store = new RedisStore({ url: server.url, prefix: o.prefix });
  const client = new Client({ store, jobs: [parkUntil] });
  const sup = new Supervisor({
    store,
    jobs: [parkUntil],
    concurrency: 100,
    leadMs: o.leadMs,
    holdMax: o.holdMax,
    logger: pino({ level: o.level }),
  });
  const keys = store.keys('default');
  const raw = (store as unknown as { redis: { zcard(k: string): Promise<number> } }).redis;
  await sup.start();
  await client.enqueue(PARKED_NAME, { at: Date.now() + o.warmMs });
  await sleep(1500);
  return {
    store,
    async enqueueDue(n, at) {
      for (let done = 0; done < n; done += 1000)
        await client.enqueueMany(
          Array.from({ length: Math.min(1000, n - done) }, () => ({ machine: PARKED_NAME, input: { at } })),
        );
    },
    async settled(n, parked = false) {
      const key = parked ? keys.delayed : keys.active;
      for (let i = 0; i < 600 && (await raw.zcard(key)) < n; i++) await sleep(100);
      return raw.zcard(keys.active);
    },
    active: () => raw.zcard(keys.active),
    async stop() {
      await sup.stop();
      client.close();
      await store.close();
      await server.stop('SIGKILL');
    },
  };
}
