// Everything a job leaves in Redis has a retention or a purge path: after 100,000 jobs have
// finished (done, failed and purged, cancelled, broken and purged, with events, waiters,
// fan-outs and idempotency keys) and their retention has passed, the store holds the same keys
// as before them, and about the same memory.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { defineJob, definePipeline, fanOut, NonRetryableError } from '../../src/index.js';
import { eventually, sleep, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

// The shortest retention the supervisor takes: its leaseMs 1000 + reaperIntervalMs 100.
const TTL = 1100;

describe('retention of everything a job leaves', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it(
    'returns to the baseline keys and memory after 100,000 finished and expired jobs',
    { timeout: 120_000 },
    async () => {
      h = new Harness(redis, { finishedTtlMs: TTL, idempotencyTtlMs: TTL, eventsMaxLen: 100 });
      const plain = defineJob({ name: 'plain', work: () => 1 });
      const failing = defineJob({
        name: 'failing',
        work: () => {
          throw new NonRetryableError('no');
        },
      });
      const kid = defineJob({
        name: 'kid',
        retry: { maxAttempts: 1 },
        work: ({ input }: { input: { fail: boolean } }) => {
          if (input.fail) throw new Error('kid failed');
          return 2;
        },
      });
      const parentMachine = setup({
        types: { input: {} as { fail: boolean } },
        actors: { fanOut },
      }).createMachine({
        id: 'parent',
        initial: 'fanning',
        context: ({ input }) => ({ fail: input.fail, out: [] as unknown[] }),
        output: ({ context }) => context.out,
        states: {
          fanning: {
            invoke: {
              id: 'kids',
              src: 'fanOut',
              input: ({ context }) => ({
                jobs: [0, 1, 2].map((n) => ({ machine: 'kid', input: { fail: context.fail && n === 1 } })),
              }),
              onDone: { target: 'end', actions: assign({ out: ({ event }) => event.output }) },
            },
          },
          end: { type: 'final' },
        },
      });
      const parent = definePipeline({ name: 'parent', machine: parentMachine, retry: { maxAttempts: 1 } });
      const listener = definePipeline({
        name: 'listener',
        machine: setup({}).createMachine({
          id: 'listener',
          initial: 'listening',
          states: { listening: { on: { GO: 'end' } }, end: { type: 'final' } },
        }),
      });
      const jobs = [plain, failing, kid, parent, listener];
      const client = h.client({ jobs });
      await h.started({ jobs, concurrency: 200, reaperIntervalMs: 100 });
      const settle = async () => {
        await sleep(TTL + 50);
        await client.purgeDeadLetters();
        await eventually(
          async () => {
            const c = await h.store.counts('default');
            return c.done + c.cancelled + c.failed + c.dead + c.broken === 0;
          },
          10_000,
          50,
        );
        await sleep(TTL + 300);
      };
      const snapshot = async () => {
        // Keys that expire by themselves (the reaper's lock, a pushed result) have their retention.
        const keys: string[] = [];
        for (const k of await h.keys()) if ((await h.raw.pttl(k)) === -1) keys.push(k.slice(h.prefix.length));
        keys.sort();
        const mem = Number(/used_memory:(\d+)/.exec(await h.raw.info('memory'))![1]);
        return { keys, mem };
      };

      // The baseline: the store as a first job leaves it.
      await client.waitForResult(await client.enqueue('plain', null), { timeoutMs: 5000 });
      await settle();
      const base = await snapshot();

      // 100,000 plain jobs, some with idempotency keys.
      for (let i = 0; i < 100; i++) {
        await client.enqueueMany(
          Array.from({ length: 1000 }, (_, n) => ({
            machine: 'plain',
            input: null,
            options: n % 10 === 0 ? { idempotencyKey: `k${i}-${n}` } : {},
          })),
        );
      }
      // Dead letters, cancelled delayed jobs, broken jobs, parents (one failing), events, waiters.
      const dead = await client.enqueueMany(
        Array.from({ length: 50 }, () => ({ machine: 'failing', input: null })),
      );
      const delayed = await client.enqueueMany(
        Array.from({ length: 50 }, () => ({ machine: 'plain', input: null, options: { delayMs: 60_000 } })),
      );
      for (const id of delayed) await client.cancel(id);
      await h.store.enqueue(
        'default',
        Array.from({ length: 20 }, (_, n) => ({
          id: `01JBROKEN${String(n).padStart(17, '0')}`,
          machine: 'ghost',
          version: 1,
          input: 'null',
          band: 2,
          delayMs: 0,
          maxAttempts: 1,
        })),
      );
      const parents = await client.enqueueMany(
        Array.from({ length: 10 }, (_, n) => ({ machine: 'parent', input: { fail: n === 0 } })),
      );
      const listeners = await client.enqueueMany(
        Array.from({ length: 20 }, () => ({ machine: 'listener', input: null })),
      );
      // A waiter that gives up on a job still running.
      await assert.rejects(() => client.waitForResult(listeners[0]!, { timeoutMs: 50 }));
      // Behind 100,000 jobs on a loaded machine: a wait, not a speed bound.
      await eventually(async () => (await client.get(listeners[19]!))?.status === 'waiting', 40_000);
      for (const id of listeners) await client.send(id, { type: 'GO' });
      for (const id of [...parents, ...listeners]) {
        const r = await client.waitForResult(id, { timeoutMs: 20_000 });
        assert.ok(r.status === 'done' || r.status === 'failed', `${id} ${r.status}`);
      }
      for (const id of dead) await client.waitForResult(id, { timeoutMs: 20_000 });
      await eventually(async () => (await h.store.counts('default')).queued === 0, 60_000, 100);
      await eventually(async () => (await h.store.counts('default')).active === 0, 20_000, 100);
      await settle();
      const end = await snapshot();
      assert.deepEqual(end.keys, base.keys);
      assert.ok(end.mem - base.mem < 1_000_000, `memory grew by ${end.mem - base.mem} bytes`);
    },
  );
});
