// Redis only: a lost lease is forged in the job hash, and the done zset is counted.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { defineJob, definePipeline, step } from '../../src/index.js';
import type { Supervisor } from '../../src/index.js';
import type { CommitPump } from '../../src/supervisor/CommitPump.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness, untilAborted } from '../support/harness.js';

/** The pump of the supervisor's first queue (private: what the test looks at is internal bookkeeping). */
const pumpOf = (sup: Supervisor): CommitPump =>
  (sup as unknown as { lanes: { pump: CommitPump }[] }).lanes[0]!.pump;

describe('worker memory', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('keeps nothing per job in the commit pump once the jobs have ended', async () => {
    h = new Harness(redis);
    const noop = defineJob({ name: 'noop', work: () => null });
    // Each step yields, so every checkpoint is written (not coalesced into the final write).
    const yieldStep = step(() => new Promise<number>((r) => setImmediate(() => r(1))));
    const steps = definePipeline({
      name: 'steps',
      machine: setup({ actors: { yieldStep } }).createMachine({
        initial: 'one',
        states: {
          one: { invoke: { id: 's1', src: 'yieldStep', onDone: 'two' } },
          two: { invoke: { id: 's2', src: 'yieldStep', onDone: 'end' } },
          end: { type: 'final' },
        },
      }),
    });
    const jobs = [noop, steps];
    const client = h.client({ jobs });
    const sup = await h.started({ jobs, concurrency: 8 });
    const n = 300;
    await client.enqueueMany([
      ...Array.from({ length: n }, () => ({ machine: 'noop' })),
      ...Array.from({ length: 50 }, () => ({ machine: 'steps' })),
    ]);
    await eventually(async () => (await h.raw.zcard(h.key('done'))) === n + 50, 20_000);
    await eventually(() => sup.inFlight === 0);
    assert.deepEqual(pumpOf(sup).trackedJobs, { lastSent: 0, crossQueueChildren: 0 });
  });

  it('forgets a child whose parent is on another queue when its run ends without a write', async () => {
    h = new Harness(redis);
    let aborted = 0;
    const hang = defineJob({
      name: 'hang',
      work: ({ signal }) => untilAborted(signal).finally(() => aborted++),
    });
    const parent = defineJob({ name: 'parent', work: () => null });
    const client = h.client({ jobs: [hang, parent] });
    const sup = await h.started({ jobs: [hang] });
    // A parent nobody runs, on another queue; its child runs here.
    const parentId = await client.enqueue('parent', null, { queue: 'other' });
    await client.enqueueChildren(parentId, 'other', 'g', [{ machine: 'hang', queue: 'default' }]);
    const childId = `${parentId}.g.0`;
    await eventually(async () => (await client.get(childId))?.status === 'working');
    assert.equal(pumpOf(sup).trackedJobs.crossQueueChildren, 1);
    // Its lease goes to someone else: the run ends with no write of its own.
    await h.raw.hset(h.key(`job:${childId}`), 'tk', 'other:1');
    await eventually(() => aborted === 1 && sup.inFlight === 0);
    assert.equal(pumpOf(sup).trackedJobs.crossQueueChildren, 0);
  });
});
