import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, RedisStore, Supervisor } from '../../src/index.js';
import { approvalPipeline } from '../../machines/approval.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

const services = { notifyReviewer: async () => {}, publish: async (id: string) => `https://docs/${id}` };
const fast = { leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 };

describe('approval pipeline: parking, events and durable deadlines', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  async function setup(concurrency = 2) {
    const store = new RedisStore({ url: redis.url, prefix: uniquePrefix('appr') });
    const approval = approvalPipeline(services);
    const sup = new Supervisor({ store, jobs: [approval], concurrency, ...fast });
    await sup.start();
    const client = new Client({ store, jobs: [approval] });
    return {
      store,
      sup,
      client,
      close: async () => {
        await sup.stop({ graceMs: 1000 });
        client.close();
        await store.close();
      },
    };
  }

  it('parks while awaiting a decision, holding no worker slot, and an APPROVE event wakes it', async () => {
    const t = await setup(1);
    const id = await t.client.enqueue('approval', { documentId: 'd1' });
    await eventually(async () => (await t.client.get(id))?.status === 'waiting');
    assert.equal(t.sup.inFlight, 0);
    const rec = await t.client.get(id);
    assert.equal(rec!.state, 'awaitingDecision');
    await t.client.send(id, { type: 'APPROVE', by: 'ana' });
    const done = await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(done.status, 'done');
    assert.deepEqual(done.output, { outcome: 'published', by: 'ana', url: 'https://docs/d1' });
    const types = (await t.client.events(id)).map((e) => e.type);
    assert.ok(types.includes('parked'), types.join(','));
    assert.ok(types.includes('event-received'));
    await t.close();
  });

  it('fires the deadline of a parked job within 1 s of its due time', async () => {
    const t = await setup(1);
    const started = Date.now();
    const id = await t.client.enqueue('approval', { documentId: 'd2', deadlineMs: 1500 });
    const done = await t.client.waitForResult(id, { timeoutMs: 6000 });
    const elapsed = Date.now() - started;
    assert.deepEqual(done.output, { outcome: 'expired', by: null });
    assert.ok(elapsed >= 1500 && elapsed < 2500, `fired after ${elapsed} ms`);
    await t.close();
  });

  it('keeps a deadline across a restart of every worker', async () => {
    const t = await setup(1);
    const id = await t.client.enqueue('approval', { documentId: 'd3', deadlineMs: 2000 });
    await eventually(async () => (await t.client.get(id))?.status === 'waiting');
    await t.sup.stop();
    const started = Date.now();
    const sup2 = new Supervisor({
      store: t.store,
      jobs: [approvalPipeline(services)],
      concurrency: 1,
      ...fast,
    });
    await sup2.start();
    const done = await t.client.waitForResult(id, { timeoutMs: 6000 });
    assert.deepEqual(done.output, { outcome: 'expired', by: null });
    assert.ok(Date.now() - started < 3000);
    await sup2.stop();
    t.client.close();
    await t.store.close();
  });

  it('with concurrency 1, a job waiting 2 s does not block the next job', async () => {
    const t = await setup(1);
    const waiting = await t.client.enqueue('approval', { documentId: 'w', deadlineMs: 2000 });
    await eventually(async () => (await t.client.get(waiting))?.status === 'waiting');
    const next = await t.client.enqueue('approval', { documentId: 'n' });
    await eventually(async () => (await t.client.get(next))?.status === 'waiting', 1500);
    await t.client.send(next, { type: 'REJECT', by: 'bo', reason: 'typos' });
    const done = await t.client.waitForResult(next, { timeoutMs: 1500 });
    assert.deepEqual(done.output, { outcome: 'rejected', by: 'bo', reason: 'typos' });
    assert.equal((await t.client.get(waiting))!.status, 'waiting');
    await t.close();
  });

  it('refuses events for finished and unknown jobs, and logs events the state does not accept', async () => {
    const t = await setup(1);
    const id = await t.client.enqueue('approval', { documentId: 'e' });
    await eventually(async () => (await t.client.get(id))?.status === 'waiting');
    await t.client.send(id, { type: 'NOT_A_THING' });
    await t.client.send(id, { type: 'REJECT', by: 'x' });
    await t.client.waitForResult(id, { timeoutMs: 5000 });
    await assert.rejects(t.client.send(id, { type: 'APPROVE', by: 'late' }), { code: 'JOB_FINISHED' });
    await assert.rejects(t.client.send('01NOPE', { type: 'APPROVE', by: 'x' }), { code: 'JOB_NOT_FOUND' });
    await assert.rejects(t.client.send(id, { nope: 1 } as never), { code: 'INVALID_INPUT' });
    const log = await t.client.events(id);
    assert.ok(
      log.some((e) => e.type === 'event-ignored' && e.event === 'NOT_A_THING'),
      JSON.stringify(log),
    );
    await t.close();
  });
});
