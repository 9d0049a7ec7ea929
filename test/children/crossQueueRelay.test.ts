// Issue 21: parents whose children run on ANOTHER queue, with a short retention. The relay of the
// child queue's outbox read each child's result from its record; once retention had deleted the
// record the entry was dropped silently and the parent waited forever (252 of 300 parents stuck
// at finishedTtlMs 1.5 s). And every ending child started a relay of its own over the same
// entries. Now: every parent ends done, one relay per queue runs at a time, and each child is
// delivered once. On both stores, and on a Redis Cluster with the two queues on two masters.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { assign, setup } from 'xstate';
import { defineJob, definePipeline, fanOut } from '../../src/index.js';
import type { RelayResult, Store } from '../../src/store/types.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { startCluster, type TestRedisCluster } from '../support/redisCluster.js';
import { MemoryHarness } from '../support/memoryHarness.js';
import type { StoreWorld } from '../support/storeWorld.js';

const PARENTS = 120;
const KIDS = 4;
const TTL = 1500;

/**
 * The store as the child queue's supervisor sees it, counting its relays of the outbox. A call's
 * deliveries are counted when it returns, so the count is read once none is in flight. A relay
 * call that throws (a delivery of its batch failed: a command timed out on a loaded host) has
 * delivered the rest of its batch uncounted; the failed one waits for the next relay.
 */
function countingRelays(store: Store) {
  const stats = { calls: 0, delivered: 0, inFlight: 0, mostAtOnce: 0, thrown: [] as string[] };
  const relayOutbox = async (queue: string): Promise<RelayResult> => {
    stats.calls++;
    stats.mostAtOnce = Math.max(stats.mostAtOnce, ++stats.inFlight);
    try {
      const r = await store.relayOutbox(queue);
      stats.delivered += r.relayed;
      return r;
    } catch (err) {
      stats.thrown.push(String(err));
      throw err;
    } finally {
      stats.inFlight--;
    }
  };
  const wrapped = new Proxy(store, {
    get(target, prop) {
      if (prop === 'relayOutbox') return relayOutbox;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: wrapped, stats };
}

const kid = defineJob({ name: 'kid', work: async ({ input }: { input: number }) => input * 2 });
const parentMachine = setup({ types: { input: {} as { n: number } }, actors: { fanOut } }).createMachine({
  id: 'parent',
  initial: 'fanning',
  context: ({ input }) => ({ n: input.n, out: [] as unknown[] }),
  output: ({ context }) => context.out,
  states: {
    fanning: {
      invoke: {
        id: 'kids',
        src: 'fanOut',
        input: ({ context }) => ({
          jobs: Array.from({ length: KIDS }, (_, i) => ({
            machine: 'kid',
            input: context.n + i,
            queue: 'kids',
          })),
        }),
        onDone: { target: 'end', actions: assign({ out: ({ event }) => event.output }) },
      },
    },
    end: { type: 'final' },
  },
});
const parent = definePipeline({ name: 'parent', machine: parentMachine });
const jobs = [kid, parent];

async function everyParentEndsDone(world: StoreWorld<Store>): Promise<void> {
  const { store: relaying, stats } = countingRelays(world.store);
  // At the retention floor's edge: leaseMs 1000 + reaperIntervalMs 200 <= 1500.
  const timing = { concurrency: 8 };
  await world.started({ jobs, queue: 'parents', ...timing });
  // The kids' supervisor relays through the counting view of the store.
  await world.started({ jobs, queue: 'kids', store: relaying, ...timing });
  const client = world.client({ jobs, queue: 'parents' });
  const ids = await Promise.all(Array.from({ length: PARENTS }, (_, n) => client.enqueue('parent', { n })));
  const settled = await Promise.allSettled(ids.map((id) => client.waitForResult(id, { timeoutMs: 10_000 })));
  const stuck = settled.filter((r) => r.status !== 'fulfilled' || r.value.status !== 'done');
  assert.equal(
    stuck.length,
    0,
    `${stuck.length} of ${PARENTS} parents did not end done (relays: ${JSON.stringify(stats)})`,
  );
  assert.deepEqual(
    (settled[7] as PromiseFulfilledResult<{ output: unknown }>).value.output,
    [14, 16, 18, 20],
  );
  assert.equal(stats.mostAtOnce, 1, 'one relay of the queue at a time');
  // A relay call adds its count only when its whole batch is through: the last parents can end
  // done on a fanIn of a batch still in flight (477 of 480 counted once, on the cluster).
  await eventually(() => stats.inFlight === 0);
  // No child delivered twice (each used to be relayed by every relay that ran over it: 2,310 of
  // 3,510 deliveries were repeats). Exactly once each unless a relay call failed part-way, whose
  // delivered entries it could not report (`thrown`: the parents above ended done regardless).
  assert.ok(
    stats.delivered <= PARENTS * KIDS,
    `${stats.delivered} deliveries of ${PARENTS * KIDS} children: repeats`,
  );
  if (stats.thrown.length === 0) assert.equal(stats.delivered, PARENTS * KIDS, 'each child delivered once');
}

describe('the retention floor', () => {
  it('refuses to start a supervisor whose store keeps finished records shorter than leaseMs + reaperIntervalMs', async () => {
    const world = new MemoryHarness({ finishedTtlMs: 1000 });
    try {
      await assert.rejects(world.started({ jobs, leaseMs: 1000, reaperIntervalMs: 200 }), {
        name: 'RetentionTooShortError',
        code: 'RETENTION_TOO_SHORT',
        field: 'finishedTtlMs',
        floorMs: 1200,
        message: /finishedTtlMs 1000 ms is below the safe floor of 1200 ms/,
      });
      await world.started({ jobs, leaseMs: 800, reaperIntervalMs: 200 });
    } finally {
      await world.close();
    }
  });
});

describe('parents whose children run on another queue, with a short retention', () => {
  let redis: TestRedis;
  let world: Harness | MemoryHarness | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => world?.close());

  it('RedisStore: every parent ends done; one relay per queue at a time', { timeout: 60_000 }, async () => {
    world = new Harness(redis, { finishedTtlMs: TTL });
    await everyParentEndsDone(world);
  });

  it('logs an outbox entry it cannot deliver, never drops one silently', async () => {
    world = new Harness(redis);
    const lines: { msg: string; entry?: string; why?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    // An entry an older version wrote (the bare child id), whose child record retention deleted.
    await world.raw.zadd(world.key('outbox', 'kids'), 1, '01JGONE0000000000000000000');
    await world.started({ jobs, queue: 'kids', logger });
    await eventually(() => lines.some((l) => l.msg.includes('outbox entry dropped')));
    const line = lines.find((l) => l.msg.includes('outbox entry dropped'))!;
    assert.equal(line.entry, '01JGONE0000000000000000000');
    assert.equal(line.why, 'the child record is gone');
    assert.equal(await world.raw.zcard(world.key('outbox', 'kids')), 0);
  });

  it('MemoryStore: every parent ends done; one relay per queue at a time', { timeout: 60_000 }, async () => {
    world = new MemoryHarness({ finishedTtlMs: TTL });
    await everyParentEndsDone(world);
  });
});

describe('parents whose children run on another shard of a Redis Cluster, with a short retention', () => {
  let cluster: TestRedisCluster;
  let world: Harness | undefined;
  before(async () => (cluster = await startCluster()));
  after(async () => cluster.stop());
  afterEach(async () => world?.close());

  it(
    'RedisStore on a 3-master cluster: every parent ends done; one relay per queue at a time',
    { timeout: 60_000 },
    async () => {
      assert.notEqual(await cluster.ownerOf('{parents}'), await cluster.ownerOf('{kids}'), 'two masters');
      world = new Harness(cluster, { finishedTtlMs: TTL });
      await everyParentEndsDone(world);
    },
  );
});
