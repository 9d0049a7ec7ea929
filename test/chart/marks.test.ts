// Marks from real jobs: their records and audit logs as a supervisor wrote them in Redis.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, RedisStore, Supervisor, defineJob } from '../../src/index.js';
import { jobMarks, machineGraph, nextEvents, toMermaid } from '../../src/chart/index.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import type { AnyDefinition, JobRecord } from '../../src/index.js';
import { approval, splitMerge } from './fixtures/machines.js';

const fast = { leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 };

describe('jobMarks', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  async function run<T>(jobs: AnyDefinition[], fn: (client: Client) => Promise<T>) {
    const store = new RedisStore({ url: redis.url, prefix: uniquePrefix('marks') });
    const sup = new Supervisor({ store, jobs, ...fast });
    await sup.start();
    const client = new Client({ store, jobs });
    try {
      return await fn(client);
    } finally {
      await sup.stop({ graceMs: 1000 });
      client.close();
      await store.close();
    }
  }

  it('lights a parked approval job waiting for its decision and marks the states it passed', async () => {
    await run([approval], async (client) => {
      const graph = machineGraph(approval);
      const id = await client.enqueue('approval', { documentId: 'd1' });
      await eventually(async () => (await client.get(id))?.status === 'waiting', 10_000);
      const parked = jobMarks((await client.get(id))!, await client.events(id), graph);
      assert.deepEqual(parked.active, ['approval.awaitingDecision']);
      assert.deepEqual(parked.visits, { 'approval.requesting': 1, 'approval.awaitingDecision': 1 });
      assert.deepEqual(parked.edgeVisits, { 'approval.requesting:0': 1 });
      assert.deepEqual(nextEvents(graph, (await client.get(id))!.state), ['APPROVE', 'REJECT']);

      await client.send(id, { type: 'APPROVE', by: 'ana' });
      const done = await client.waitForResult(id, { timeoutMs: 10_000 });
      const end = jobMarks(done, await client.events(id), graph);
      assert.deepEqual(end.active, ['approval.published']);
      assert.deepEqual(end.visits, {
        'approval.requesting': 1,
        'approval.awaitingDecision': 1,
        'approval.publishing': 1,
        'approval.published': 1,
      });
      assert.deepEqual(end.edgeVisits, {
        'approval.requesting:0': 1,
        'approval.awaitingDecision:0': 1,
        'approval.publishing:0': 1,
      });
    });
  });

  it('marks where a cancelled pipeline stopped instead of lighting it as if it still ran there', async () => {
    await run([approval], async (client) => {
      const graph = machineGraph(approval);
      const id = await client.enqueue('approval', { documentId: 'd2' });
      await eventually(async () => (await client.get(id))?.status === 'waiting', 10_000);
      await client.cancel(id);
      await eventually(async () => (await client.get(id))?.status === 'cancelled', 10_000);
      const marks = jobMarks((await client.get(id))!, await client.events(id), graph);
      assert.deepEqual(marks.active, [], 'nothing runs any more');
      assert.deepEqual(marks.stopped, ['approval.awaitingDecision']);
      assert.equal(marks.ended, 'cancelled');
      assert.deepEqual(marks.visits, { 'approval.requesting': 1, 'approval.awaitingDecision': 1 });
      // The Mermaid chart says the same: the stopped state has its own class, not `active`.
      const mermaid = toMermaid(graph, marks);
      assert.match(mermaid, /class approval_awaitingDecision stopped/);
      assert.doesNotMatch(mermaid, /class \S+ active/);
    });
  });

  it("counts a simple job's retries on the lifecycle chart", async () => {
    const flaky = defineJob({
      name: 'flaky',
      retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 10 } },
      load: () => 'x',
      work: async ({ attempt }) => {
        if (attempt < 3) throw new Error(`attempt ${attempt}`);
        return 'ok';
      },
    });
    await run([flaky], async (client) => {
      const graph = machineGraph(flaky);
      const id = await client.enqueue('flaky', null);
      const done = await client.waitForResult(id, { timeoutMs: 10_000 });
      const marks = jobMarks(done, await client.events(id), graph);
      assert.deepEqual(marks.active, ['job.done']);
      assert.deepEqual(marks.visits, { 'job.queued': 3, 'job.loading': 3, 'job.working': 3, 'job.done': 1 });
      // By edge id: CLAIM [hasLoad], LOADED, FAIL [canRetry] (not RETRY_LATER or REQUEUE), SUCCEED.
      assert.deepEqual(marks.edgeVisits, {
        'job.queued:0': 3,
        'job.loading:0': 3,
        'job.working:1': 2,
        'job.working:0': 1,
      });
    });
  });

  it("passes through an eventless state the log does not name (splitMerge's merging)", () => {
    const graph = machineGraph(splitMerge);
    const record = { status: 'done', state: 'merged', snapshot: { w: {} } } as unknown as JobRecord;
    const log = [
      { at: 1, type: 'enqueued' },
      { at: 2, type: 'claimed' },
      { at: 3, type: 'state', state: 'counting' },
      { at: 4, type: 'parked', state: 'counting' },
      { at: 5, type: 'state', state: 'merged' },
      { at: 6, type: 'done' },
    ];
    const marks = jobMarks(record, log, graph);
    assert.deepEqual(marks.active, ['splitMerge.merged']);
    assert.deepEqual(marks.visits, {
      'splitMerge.counting': 1,
      'splitMerge.merging': 1,
      'splitMerge.merged': 1,
    });
    assert.deepEqual(marks.edgeVisits, { 'splitMerge.counting:0': 1, 'splitMerge.merging:0': 1 });
  });
});
