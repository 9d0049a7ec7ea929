// A simple job's chart marks the transitions its audit log says were taken, and no other: the
// lifecycle has three working -> queued edges (FAIL [canRetry], RETRY_LATER, REQUEUE), and a job
// that retried twice took only the first. Every lifecycle path, on both stores (each writes its
// own audit log), read as users see it: the counted edges of `machinist chart`'s Mermaid text.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, RetryLaterError, type AnyDefinition, type Client } from '../../src/index.js';
import { jobMarks, machineGraph, toMermaid } from '../../src/chart/index.js';
import type { Store } from '../../src/store/types.js';
import { Harness, untilAborted } from '../support/harness.js';
import { MemoryHarness } from '../support/memoryHarness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import type { StoreWorld } from '../support/storeWorld.js';

const fixed = { type: 'fixed', delayMs: 10 } as const;

const quick = defineJob({ name: 'quick', work: async () => 'ok' });
const flaky = defineJob({
  name: 'flaky',
  retry: { maxAttempts: 3, backoff: fixed },
  work: async ({ attempt }) => {
    if (attempt < 3) throw new Error(`attempt ${attempt}`);
    return 'ok';
  },
});
/** A retry-later does not count an attempt: each job asks for one once. */
const askedLater = new Set<string>();
const later = defineJob({
  name: 'later',
  retry: { maxAttempts: 3, backoff: fixed },
  work: async ({ jobId }) => {
    if (!askedLater.has(jobId)) {
      askedLater.add(jobId);
      throw new RetryLaterError(10);
    }
    return 'ok';
  },
});
const doomed = defineJob({
  name: 'doomed',
  retry: { maxAttempts: 2, backoff: fixed },
  work: async () => {
    throw new Error('always');
  },
});
const blocked = defineJob({ name: 'blocked', work: async ({ signal }) => untilAborted(signal) });
const JOBS: AnyDefinition[] = [quick, flaky, later, doomed, blocked];

/** The counted transitions of the job's Mermaid chart: `working -> queued : FAIL [canRetry] ×2`. */
async function countedEdges(client: Client, id: string, def: AnyDefinition): Promise<string[]> {
  const graph = machineGraph(def);
  const marks = jobMarks((await client.get(id))!, await client.events(id), graph);
  return toMermaid(graph, marks)
    .split('\n')
    .filter((l) => /-->.*×\d+$/.test(l))
    .map((l) => l.trim().replace(/\bjob_/g, ''))
    .sort();
}

const until = async (client: Client, id: string, status: string) =>
  eventually(async () => (await client.get(id))?.status === status, 15_000);

function lifecyclePaths(name: string, open: () => Promise<StoreWorld<Store> & { close(): Promise<void> }>) {
  describe(`a simple job's chart on ${name}`, () => {
    let world: StoreWorld<Store> & { close(): Promise<void> };
    let client: Client;
    before(async () => {
      world = await open();
      client = world.client({ jobs: JOBS });
    });
    after(async () => world.close());

    const supervised = () => world.started({ jobs: JOBS });

    it('done at the first attempt: CLAIM then SUCCEED', async () => {
      await supervised();
      const id = await client.enqueue('quick', null);
      await client.waitForResult(id, { timeoutMs: 15_000 });
      assert.deepEqual(await countedEdges(client, id, quick), [
        'queued --> working : CLAIM ×1',
        'working --> done : SUCCEED ×1',
      ]);
    });

    it('retried twice then done: FAIL [canRetry] ×2, not RETRY_LATER or REQUEUE', async () => {
      const id = await client.enqueue('flaky', null);
      await client.waitForResult(id, { timeoutMs: 15_000 });
      assert.deepEqual(await countedEdges(client, id, flaky), [
        'queued --> working : CLAIM ×3',
        'working --> done : SUCCEED ×1',
        'working --> queued : FAIL [canRetry] ×2',
      ]);
    });

    it('asked to retry later: RETRY_LATER once', async () => {
      const id = await client.enqueue('later', null);
      await client.waitForResult(id, { timeoutMs: 15_000 });
      assert.deepEqual(await countedEdges(client, id, later), [
        'queued --> working : CLAIM ×2',
        'working --> done : SUCCEED ×1',
        'working --> queued : RETRY_LATER ×1',
      ]);
    });

    it('failed after its last attempt: FAIL [canRetry] once, then FAIL to failed', async () => {
      const id = await client.enqueue('doomed', null);
      await until(client, id, 'failed');
      assert.deepEqual(await countedEdges(client, id, doomed), [
        'queued --> working : CLAIM ×2',
        'working --> failed : FAIL ×1',
        'working --> queued : FAIL [canRetry] ×1',
      ]);
    });

    it('cancelled while running: CLAIM, then CANCEL', async () => {
      const id = await client.enqueue('blocked', null);
      await until(client, id, 'working');
      await client.cancel(id);
      await until(client, id, 'cancelled');
      assert.deepEqual(await countedEdges(client, id, blocked), [
        'job --> cancelled : CANCEL ×1',
        'queued --> working : CLAIM ×1',
      ]);
    });

    it('cancelled while queued: CANCEL only', async () => {
      const id = await client.enqueue('quick', null, { delayMs: 600_000 });
      await client.cancel(id);
      await until(client, id, 'cancelled');
      assert.deepEqual(await countedEdges(client, id, quick), ['job --> cancelled : CANCEL ×1']);
    });
  });
}

describe('lifecycle marks', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  lifecyclePaths('RedisStore', async () => new Harness(redis));
  lifecyclePaths('MemoryStore', async () => new MemoryHarness());

  describe('a job whose worker died (lease requeue)', () => {
    let world: (StoreWorld<Store> & { close(): Promise<void> }) | undefined;
    afterEach(async () => world?.close());

    for (const [name, open] of [
      ['RedisStore', () => new Harness(redis)],
      ['MemoryStore', () => new MemoryHarness()],
    ] as const) {
      it(`on ${name}: REQUEUE once, not FAIL or RETRY_LATER`, async () => {
        world = open();
        const client = world.client({ jobs: JOBS });
        const id = await client.enqueue('quick', null);
        // A worker that claims it and dies: its lease passes, the reaper requeues it.
        const claimed = await world.store.commit('default', [], {
          workerId: 'dead',
          max: 1,
          leaseMs: 300,
          loadMachines: [],
        });
        assert.equal(claimed.claimed.length, 1);
        await world.started({ jobs: JOBS });
        await client.waitForResult(id, { timeoutMs: 15_000 });
        assert.deepEqual(await countedEdges(client, id, quick), [
          'queued --> working : CLAIM ×2',
          'working --> done : SUCCEED ×1',
          'working --> queued : REQUEUE ×1',
        ]);
      });
    }
  });
});
