// Every route of the HTTP API, answered by a real server on a loopback port over a real
// redis-server, with a supervisor running the jobs.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { defineJob, definePipeline, NonRetryableError, Supervisor } from '../../src/index.js';
import { FAST } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';
import { pino } from 'pino';

const echo = defineJob({
  name: 'echo',
  work: async ({ input }: { input: { n?: number; sleepMs?: number; fail?: boolean } }) => {
    if (input?.sleepMs) await new Promise((r) => setTimeout(r, input.sleepMs));
    if (input?.fail) throw new NonRetryableError('asked to fail');
    return input;
  },
});

const approval = definePipeline({
  name: 'approval',
  machine: setup({}).createMachine({
    initial: 'waiting',
    states: { waiting: { on: { APPROVE: 'approved' } }, approved: { type: 'final' } },
  }),
});

describe('HTTP API routes', () => {
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

  async function start(withWorker = true): Promise<void> {
    api = await startApi(redis, { jobs: [echo, approval] });
    if (withWorker) {
      supervisor = new Supervisor({
        store: api.store,
        jobs: [echo, approval],
        logger: pino({ level: 'silent' }),
        ...FAST,
      });
      await supervisor.start();
    }
  }

  it('POST /jobs answers 202 with the job id and a Location that reads the job', async () => {
    await start();
    const res = await api.call('POST', '/jobs', {
      body: { machine: 'echo', input: { n: 1 }, priority: 'high' },
    });
    assert.equal(res.status, 202);
    assert.match(res.json.job_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(res.headers.get('location'), `/jobs/${res.json.job_id}`);
    const job = (await eventually(async () => {
      const r = await api.call('GET', res.headers.get('location')!);
      return r.json.status === 'done' ? r : null;
    }))!;
    assert.equal(job.status, 200);
    assert.deepEqual(job.json.output, { n: 1 });
    assert.equal(job.json.priority, 'high');
    assert.equal(job.json.snapshot, undefined, 'the persisted snapshot is not shown');
  });

  it('honours Idempotency-Key: the same key returns the same job id', async () => {
    await start(false);
    const headers = { 'idempotency-key': 'order-42' };
    const a = await api.call('POST', '/jobs', { body: { machine: 'echo', input: {} }, headers });
    const b = await api.call('POST', '/jobs', { body: { machine: 'echo', input: { other: 1 } }, headers });
    assert.equal(a.status, 202);
    assert.equal(b.json.job_id, a.json.job_id);
    const page = await api.call('GET', '/jobs');
    assert.equal(page.json.jobs.length, 1, 'one job was made');
    const differ = await api.call('POST', '/jobs', {
      body: { machine: 'echo', idempotencyKey: 'other' },
      headers,
    });
    assert.equal(differ.status, 400);
    assert.equal(differ.json.error.field, 'idempotencyKey');
  });

  it('honours dedupe in the enqueue body: a debounce replaces the pending input; a bad one is a 400 naming the field', async () => {
    await start(false);
    const dedupe = { key: 'doc-1', mode: 'debounce', ttlMs: 60_000 };
    const a = await api.call('POST', '/jobs', { body: { machine: 'echo', input: { n: 1 }, dedupe } });
    const b = await api.call('POST', '/jobs', { body: { machine: 'echo', input: { n: 2 }, dedupe } });
    assert.equal(a.status, 202);
    assert.equal(b.json.job_id, a.json.job_id);
    // The second was kept in the first: its reply says so, the first's does not.
    assert.equal(a.json.deduplicated, undefined);
    assert.equal(a.headers.get('machinist-deduplicated'), null);
    assert.equal(b.json.deduplicated, true);
    assert.equal(b.headers.get('machinist-deduplicated'), 'true');
    const job = await api.call('GET', `/jobs/${a.json.job_id}`);
    assert.deepEqual(job.json.input, { n: 2 });
    const bad = await api.call('POST', '/jobs', {
      body: { machine: 'echo', dedupe: { key: 'k', mode: 'ttl' } },
    });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.json.error), /dedupe\.ttlMs/);
    assert.equal((await api.call('GET', '/jobs')).json.jobs.length, 1, 'nothing else was made');
  });

  it('?wait answers 200 with the record when the job finishes in time', async () => {
    await start();
    const res = await api.call('POST', '/jobs?wait=10s', { body: { machine: 'echo', input: { n: 7 } } });
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'done');
    assert.deepEqual(res.json.output, { n: 7 });
    assert.ok(res.headers.get('location'));
  });

  it('?wait answers 202 with the id when the job does not finish in time', async () => {
    await start(false); // no worker: the job cannot finish
    const res = await api.call('POST', '/jobs?wait=300ms', { body: { machine: 'echo', input: {} } });
    assert.equal(res.status, 202);
    const job = await api.call('GET', `/jobs/${res.json.job_id}`);
    assert.equal(job.json.status, 'queued', 'the job was stored all the same');
  });

  it('?wait answers 200 with a failed record too (it finished)', async () => {
    await start();
    const res = await api.call('POST', '/jobs?wait=10s', {
      body: { machine: 'echo', input: { fail: true } },
    });
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'failed');
    assert.equal(res.json.error.message, 'asked to fail');
  });

  it('GET /jobs lists a page with filters and a cursor that reaches every job once', async () => {
    await start(false);
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++)
      ids.add((await api.call('POST', '/jobs', { body: { machine: 'echo', input: { i } } })).json.job_id);
    await api.call('POST', '/jobs', { body: { machine: 'approval', queue: 'other' } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `/jobs?status=queued&machine=echo&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await api.call('GET', q);
      assert.equal(page.status, 200);
      assert.ok(page.json.jobs.length <= 2);
      for (const j of page.json.jobs) seen.push(j.id);
      cursor = page.json.cursor;
    } while (cursor);
    assert.deepEqual(new Set(seen), ids);
    assert.equal(seen.length, 5);
    const other = await api.call('GET', '/jobs?queue=other');
    assert.deepEqual(
      other.json.jobs.map((j: { machine: string }) => j.machine),
      ['approval'],
    );
  });

  it('GET /jobs/:id/events is the audit log; unknown jobs are 404', async () => {
    await start();
    const res = await api.call('POST', '/jobs?wait=10s', { body: { machine: 'echo', input: {} } });
    const log = await api.call('GET', `/jobs/${res.json.id}/events`);
    assert.equal(log.status, 200);
    assert.deepEqual(
      log.json.events.map((e: { type: string }) => e.type),
      ['enqueued', 'claimed', 'done'],
    );
    for (const path of ['/jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV', '/jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV/events']) {
      const missing = await api.call('GET', path);
      assert.equal(missing.status, 404, path);
      assert.equal(missing.json.error.code, 'JOB_NOT_FOUND');
      assert.equal(missing.json.error.jobId, '01ARZ3NDEKTSV4RRFFQ69G5FAV');
    }
  });

  it('POST /jobs/:id/cancel cancels a queued job, says false once finished, 404 when unknown', async () => {
    await start(false);
    const { json } = await api.call('POST', '/jobs', { body: { machine: 'echo', delayMs: 60_000 } });
    const first = await api.call('POST', `/jobs/${json.job_id}/cancel`);
    assert.deepEqual(first.json, { job_id: json.job_id, cancelled: true });
    assert.equal((await api.call('GET', `/jobs/${json.job_id}`)).json.status, 'cancelled');
    const again = await api.call('POST', `/jobs/${json.job_id}/cancel`);
    assert.equal(again.json.cancelled, false);
    assert.equal((await api.call('POST', '/jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel')).status, 404);
  });

  it('POST /jobs/:id/events delivers an event to a pipeline job; a finished job is 409', async () => {
    await start();
    const { json } = await api.call('POST', '/jobs', { body: { machine: 'approval' } });
    await eventually(async () => (await api.call('GET', `/jobs/${json.job_id}`)).json.status === 'waiting');
    const sent = await api.call('POST', `/jobs/${json.job_id}/events`, {
      body: { event: { type: 'APPROVE', by: 'ana' } },
      headers: { 'idempotency-key': 'approve-1' },
    });
    assert.equal(sent.status, 202);
    assert.deepEqual(sent.json, { job_id: json.job_id, event_id: 'approve-1' });
    await eventually(async () => (await api.call('GET', `/jobs/${json.job_id}`)).json.status === 'done');
    const late = await api.call('POST', `/jobs/${json.job_id}/events`, {
      body: { event: { type: 'APPROVE' } },
    });
    assert.equal(late.status, 409);
    assert.equal(late.json.error.code, 'JOB_FINISHED');
    const reserved = await api.call('POST', `/jobs/${json.job_id}/events`, {
      body: { event: { type: 'xstate.init' } },
    });
    assert.equal(reserved.status, 400);
    assert.equal(reserved.json.error.field, 'event.type');
    const unknown = await api.call('POST', '/jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV/events', {
      body: { event: { type: 'A' } },
    });
    assert.equal(unknown.status, 404);
  });

  it('dead letters: listed, retried, purged one at a time; a job that is none is 404', async () => {
    await start();
    const failed = await api.call('POST', '/jobs?wait=10s', {
      body: { machine: 'echo', input: { fail: true } },
    });
    const other = await api.call('POST', '/jobs?wait=10s', {
      body: { machine: 'echo', input: { fail: true } },
    });
    const list = await api.call('GET', '/dead-letters');
    assert.equal(list.status, 200);
    assert.deepEqual(
      new Set(list.json.deadLetters.map((d: { id: string }) => d.id)),
      new Set([failed.json.id, other.json.id]),
    );
    assert.equal(list.json.deadLetters[0].error.message, 'asked to fail');

    const retried = await api.call('POST', `/dead-letters/${failed.json.id}/retry`);
    assert.deepEqual(retried.json, { job_id: failed.json.id, status: 'queued' });
    await eventually(async () => (await api.call('GET', `/jobs/${failed.json.id}`)).json.status === 'failed');

    const purged = await api.call('DELETE', `/dead-letters/${other.json.id}`);
    assert.deepEqual(purged.json, { job_id: other.json.id, purged: true });
    const left = await api.call('GET', '/dead-letters');
    assert.deepEqual(
      left.json.deadLetters.map((d: { id: string }) => d.id),
      [failed.json.id],
    );
    const again = await api.call('DELETE', `/dead-letters/${other.json.id}`);
    assert.equal(again.status, 404);
    assert.equal(again.json.error.code, 'NOT_DEAD_LETTER');
    const done = await api.call('POST', '/jobs?wait=10s', { body: { machine: 'echo', input: {} } });
    assert.equal((await api.call('POST', `/dead-letters/${done.json.id}/retry`)).status, 404);
  });

  it('GET /machines lists the definitions; GET /machines/:name gives the chart as JSON', async () => {
    await start();
    const list = await api.call('GET', '/machines');
    assert.deepEqual(
      list.json.machines.map((m: { name: string; kind: string }) => [m.name, m.kind]),
      [
        ['approval', 'pipeline'],
        ['echo', 'job'],
      ],
    );
    const chart = await api.call('GET', '/machines/approval');
    assert.equal(chart.status, 200);
    assert.deepEqual(chart.json.versions, [1]);
    assert.deepEqual(Object.keys(chart.json.definition.states), ['waiting', 'approved']);
    assert.ok(
      JSON.stringify(chart.json.definition.states.waiting).includes('APPROVE'),
      'transitions are there',
    );
    const lifecycle = await api.call('GET', '/machines/echo');
    assert.ok(lifecycle.json.definition.states.working, 'a simple job shows the lifecycle it runs in');
    const missing = await api.call('GET', '/machines/nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.machine, 'nope');
  });

  it('GET /machines also knows machines only the registry has (a server without --jobs)', async () => {
    await start();
    const bare = await startApi(redis, {});
    try {
      // The bare server shares no prefix with the worker: publish through its own store.
      await bare.store.registerMachines([{ name: 'remote', versions: [1, 2], hasLoad: false }]);
      const list = await bare.call('GET', '/machines');
      assert.deepEqual(list.json.machines, [
        { name: 'remote', kind: 'job', versions: [1, 2], hasLoad: false },
      ]);
      const unknown = await bare.call('POST', '/jobs', { body: { machine: 'echo' } });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.json.error.code, 'UNKNOWN_MACHINE');
      assert.equal(unknown.json.error.machine, 'echo');
    } finally {
      await bare.close();
    }
  });
});
