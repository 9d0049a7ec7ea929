// POST /jobs/batch: many jobs in one request, all or nothing, with the ids in the order sent; and
// with `?wait`, one answer once every job has finished (200) or the wait has passed (202).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { defineJob, NonRetryableError, Supervisor } from '../../src/index.js';
import { FAST } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { startApi, TOKEN, type Api } from '../support/api.js';
import { resize } from '../cli/fixtures/schemaJobs.js';

const echo = defineJob({
  name: 'echo',
  work: async ({ input }: { input: { n?: number; sleepMs?: number; fail?: boolean } }) => {
    if (input?.sleepMs) await new Promise((r) => setTimeout(r, input.sleepMs));
    if (input?.fail) throw new NonRetryableError('asked to fail');
    return input;
  },
});
const jobs = [echo, resize];

describe('POST /jobs/batch', () => {
  let redis: TestRedis;
  let api: Api | undefined;
  let raw: Redis;
  let supervisor: Supervisor | undefined;
  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  after(async () => {
    raw.disconnect();
    await redis.stop();
  });
  afterEach(async () => {
    await supervisor?.stop({ graceMs: 0 });
    supervisor = undefined;
    await api?.close();
    api = undefined;
  });

  async function start(withWorker: boolean): Promise<Api> {
    api = await startApi(redis, { jobs });
    if (withWorker) {
      supervisor = new Supervisor({ store: api.store, jobs, logger: pino({ level: 'silent' }), ...FAST });
      await supervisor.start();
    }
    return api;
  }

  /** Every key of the test's store: what a refused batch must leave as it was. */
  const keys = async (a: Api) => (await raw.keys(`${a.prefix}*`)).sort();

  it('answers 202 with the ids in the order sent, each job stored with its own options', async () => {
    const a = await start(false);
    const res = await a.call('POST', '/jobs/batch', {
      body: {
        jobs: [
          { machine: 'echo', input: { n: 0 } },
          { machine: 'echo', input: { n: 1 }, priority: 'high', queue: 'other' },
          { machine: 'echo', input: { n: 2 }, maxAttempts: 7 },
        ],
      },
    });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.json.jobs.length, 3);
    for (const [n, j] of (res.json.jobs as { job_id: string; deduplicated?: boolean }[]).entries()) {
      assert.equal(j.deduplicated, undefined);
      const job = (await a.call('GET', `/jobs/${j.job_id}`)).json;
      assert.deepEqual(job.input, { n });
      if (n === 1) assert.deepEqual([job.queue, job.priority], ['other', 'high']);
      if (n === 2) assert.equal(job.maxAttempts, 7);
    }
  });

  it('says deduplicated per job, for a key met within the batch and one met before it', async () => {
    const a = await start(false);
    const first = await a.call('POST', '/jobs', { body: { machine: 'echo', idempotencyKey: 'before' } });
    const res = await a.call('POST', '/jobs/batch', {
      body: {
        jobs: [
          { machine: 'echo', input: { n: 0 }, dedupe: { key: 'd' } },
          { machine: 'echo', input: { n: 1 }, idempotencyKey: 'before' },
          { machine: 'echo', input: { n: 2 }, dedupe: { key: 'd' } },
          { machine: 'echo', input: { n: 3 } },
        ],
      },
    });
    assert.equal(res.status, 202, res.text);
    const [d0, kept, d2, fresh] = res.json.jobs;
    assert.equal(d0.deduplicated, undefined);
    assert.deepEqual(kept, { job_id: first.json.job_id, deduplicated: true });
    assert.deepEqual(d2, { job_id: d0.job_id, deduplicated: true });
    assert.equal(fresh.deduplicated, undefined);
    assert.equal(new Set([d0.job_id, kept.job_id, fresh.job_id]).size, 3);
  });

  it('refuses the whole batch for one bad job, naming it, and writes nothing', async () => {
    const a = await start(false);
    await a.call('POST', '/jobs', { body: { machine: 'echo' } });
    const before = await keys(a);
    const ok = { machine: 'echo', input: { n: 1 } };
    // Refused by the body's schema (POST /jobs's, for each job).
    const badOption = await a.call('POST', '/jobs/batch', {
      body: { jobs: [ok, ok, { machine: 'echo', priority: 'urgent' }, ok] },
    });
    assert.equal(badOption.status, 400, badOption.text);
    assert.equal(badOption.json.error.code, 'INVALID_INPUT');
    assert.equal(badOption.json.error.field, 'jobs.2.priority');
    // Refused by the Client, as POST /jobs would be: an unknown machine, an input its schema refuses.
    const unknown = await a.call('POST', '/jobs/batch', { body: { jobs: [ok, { machine: 'nope' }] } });
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(unknown.json.error.code, 'UNKNOWN_MACHINE');
    assert.equal(unknown.json.error.index, 1);
    assert.match(unknown.json.error.message, /^item 1: .*nope/);
    const badInput = await a.call('POST', '/jobs/batch', {
      body: {
        jobs: [
          ok,
          { machine: 'resize', input: { url: 'a.png' } },
          { machine: 'resize', input: { sizes: [1] } },
        ],
      },
    });
    assert.equal(badInput.status, 400, badInput.text);
    assert.equal(badInput.json.error.index, 2);
    assert.equal(badInput.json.error.field, 'input.url');
    assert.equal(badInput.json.error.issues[0].path, 'input.url');
    // A bad wait, and the Idempotency-Key header, are refused before anything is made too.
    const badWait = await a.call('POST', '/jobs/batch?wait=soon', { body: { jobs: [ok] } });
    assert.equal(badWait.status, 400);
    const header = await a.call('POST', '/jobs/batch', {
      body: { jobs: [ok] },
      headers: { 'idempotency-key': 'k' },
    });
    assert.equal(header.status, 400);
    assert.equal(header.json.error.field, 'Idempotency-Key');
    assert.match(header.json.error.message, /idempotencyKey on each job/);
    assert.deepEqual(await keys(a), before);
  });

  it('takes at most 1000 jobs, and says so', async () => {
    const a = await start(false);
    const before = await keys(a);
    const jobsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ machine: 'echo', input: i }));
    const over = await a.call('POST', '/jobs/batch', { body: { jobs: jobsOf(1001) } });
    assert.equal(over.status, 400, over.text);
    assert.equal(over.json.error.field, 'jobs');
    assert.match(over.json.error.message, /1000/);
    const none = await a.call('POST', '/jobs/batch', { body: { jobs: [] } });
    assert.equal(none.status, 400, none.text);
    assert.deepEqual(await keys(a), before);
    const full = await a.call('POST', '/jobs/batch', { body: { jobs: jobsOf(1000) } });
    assert.equal(full.status, 202, full.text);
    assert.equal(new Set(full.json.jobs.map((j: { job_id: string }) => j.job_id)).size, 1000);
  });

  it('?wait answers 200 with every record once all have finished, a failed one among them', async () => {
    const a = await start(true);
    const res = await a.call('POST', '/jobs/batch?wait=20s', {
      body: {
        jobs: [
          { machine: 'echo', input: { n: 0 } },
          { machine: 'echo', input: { n: 1, fail: true } },
          { machine: 'echo', input: { n: 2 }, record: 'minimal' },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    const [j0, j1, j2] = res.json.jobs;
    assert.deepEqual([j0.finished, j1.finished, j2.finished], [true, true, true]);
    assert.deepEqual([j0.job.status, j0.job.output], ['done', { n: 0 }]);
    assert.equal(j0.job.id, j0.job_id);
    assert.equal(j1.job.status, 'failed');
    assert.match(j1.job.error.message, /asked to fail/);
    assert.deepEqual([j2.job.status, j2.job.output], ['done', { n: 2 }]);
  });

  it('?wait answers 202 when the wait passes, saying which jobs finished', async () => {
    const a = await start(true);
    const res = await a.call('POST', '/jobs/batch?wait=3s', {
      body: {
        jobs: [
          { machine: 'echo', input: { n: 0 } },
          { machine: 'echo', input: { sleepMs: 60_000 } },
          { machine: 'echo', input: { n: 2 } },
        ],
      },
    });
    assert.equal(res.status, 202, res.text);
    const [j0, late, j2] = res.json.jobs;
    assert.deepEqual([j0.finished, late.finished, j2.finished], [true, false, true]);
    assert.deepEqual(j2.job.output, { n: 2 });
    assert.equal(late.job, undefined);
    assert.equal((await a.call('GET', `/jobs/${late.job_id}`)).json.status, 'working');
  });

  it('ends the waits of a client that disconnected', async () => {
    const a = await start(false);
    const body = JSON.stringify({
      jobs: Array.from({ length: 5 }, (_, n) => ({ machine: 'echo', input: n })),
    });
    const req = request(`${a.url}/jobs/batch?wait=100s`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.end(body);
    const jobKeys = async () =>
      (await raw.keys(`${a.prefix}:*job:*`)).filter((k) => /:job:[0-9A-Z]{26}$/.test(k));
    const marks = async () => Promise.all((await jobKeys()).map((k) => raw.hget(k, 'wt')));
    // Every job is made watched for the waiting request...
    await eventually(async () => {
      const m = await marks();
      return m.length === 5 && m.every((x) => x !== null);
    }, 15_000);
    req.destroy();
    // ...and the watches end with the connection, not at the wait's 100 s.
    await eventually(async () => (await marks()).every((x) => x === null), 15_000);
    assert.equal((await a.call('GET', '/healthz')).status, 200);
  });
});
