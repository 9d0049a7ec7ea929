// GET /jobs/search and GET /workers over a real server and redis-server: the search's filters
// and cursor as query parameters, a bad query a 400 naming the parameter, and the fleet with a
// running supervisor.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { defineJob, Supervisor } from '../../src/index.js';
import { FAST } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

const order = defineJob({ name: 'order', work: ({ input }) => input });

describe('GET /jobs/search and GET /workers', () => {
  let redis: TestRedis;
  let api: Api;
  let supervisor: Supervisor | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    await supervisor?.stop({ graceMs: 0 });
    supervisor = undefined;
    await api?.close();
  });

  it('finds jobs by a nested input field, page after page with the cursor', async () => {
    api = await startApi(redis, { jobs: [order] });
    for (let n = 0; n < 30; n++)
      await api.call('POST', '/jobs', { body: { machine: 'order', input: { order: { id: n % 3 } } } });
    const found: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q = new URLSearchParams({ where: 'input.order.id = 1', scanLimit: '7', machine: 'order' });
      if (cursor) q.set('cursor', cursor);
      const res = await api.call('GET', `/jobs/search?${q.toString()}`);
      assert.equal(res.status, 200, res.text);
      assert.ok(res.json.scanned <= 7);
      assert.equal(res.json.engine, 'scan');
      found.push(...res.json.jobs.map((j: { id: string }) => j.id));
      cursor = res.json.cursor;
      pages++;
    } while (cursor && pages < 50);
    assert.equal(found.length, 10);
    assert.equal(new Set(found).size, 10);
    assert.ok(pages >= 5, `${pages} pages`);
    const two = await api.call(
      'GET',
      '/jobs/search?where=input.order.id%20%3E%3D%201&where=input.order.id%20!%3D%202',
    );
    assert.equal(two.json.jobs.length, 10, 'repeated where: every one holds');
  });

  it('answers a bad query with 400 INVALID_INPUT naming the parameter', async () => {
    api = await startApi(redis, { jobs: [order] });
    const bad = await api.call('GET', '/jobs/search?where=secrets.token%20%3D%201');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.code, 'INVALID_INPUT');
    assert.equal(bad.json.error.field, 'where');
    assert.match(bad.json.error.message, /must start with one of input/);
    const cursor = await api.call('GET', '/jobs/search?cursor=zzz');
    assert.equal(cursor.status, 400);
    assert.equal(cursor.json.error.field, 'cursor');
    const limit = await api.call('GET', '/jobs/search?limit=0');
    assert.equal(limit.status, 400);
  });

  it('lists a running supervisor on GET /workers', async () => {
    api = await startApi(redis, { jobs: [order] });
    supervisor = new Supervisor({
      store: api.store,
      jobs: [order],
      logger: pino({ level: 'silent' }),
      ...FAST,
    });
    await supervisor.start();
    const res = await eventually(async () => {
      const r = await api.call('GET', '/workers');
      return r.json.workers?.length === 1 ? r : undefined;
    }, 5000);
    assert.ok(res);
    const [w] = res.json.workers;
    assert.equal(w.workerId, supervisor.workerId);
    assert.equal(w.status, 'live');
    assert.equal(w.pid, process.pid);
    assert.deepEqual(w.reaped, []);
  });
});
