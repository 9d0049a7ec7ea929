// The schedule routes (docs/schedules.md): create, read, list, pause, resume, trigger, backfill,
// remove, and the refusals with their codes.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: ({ input }) => input });

describe('HTTP schedules', () => {
  let redis: TestRedis;
  let api: Api;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => api.close());

  it('creates, reads, pauses, resumes, triggers, backfills and removes a schedule', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const put = await api.call('PUT', '/schedules/nightly', {
      body: {
        cron: '30 2 * * *',
        timezone: 'Europe/Rome',
        machine: 'echo',
        input: { a: 1 },
        overlap: 'allowAll',
        pauseOnFailure: true,
      },
    });
    assert.equal(put.status, 200, put.text);
    assert.match(put.json.text, /02:30/);
    assert.equal(put.json.spec.pauseOnFailure, true);
    assert.equal(put.json.nextTicks.length, 5);
    assert.deepEqual(put.json.spec.input, { a: 1 });
    const list = await api.call('GET', '/schedules');
    assert.deepEqual(
      list.json.schedules.map((s: { id: string }) => s.id),
      ['nightly'],
    );
    const paused = await api.call('POST', '/schedules/nightly/pause', { body: { note: 'maintenance' } });
    assert.equal(paused.status, 200, paused.text);
    assert.equal(paused.json.note, 'maintenance');
    assert.equal((await api.call('POST', '/schedules/nightly/resume')).json.paused, false);
    const trig = await api.call('POST', '/schedules/nightly/trigger');
    assert.match(trig.json.job_id, /^sch\.nightly\.m\d+$/);
    const back = await api.call('POST', '/schedules/nightly/backfill', {
      body: { from: '2026-01-01T00:00:00Z', to: '2026-01-03T00:00:00Z' },
    });
    assert.equal(back.status, 200, back.text);
    assert.equal(back.json.job_ids.length, 2);
    assert.equal((await api.call('DELETE', '/schedules/nightly')).json.removed, true);
    assert.equal((await api.call('GET', '/schedules/nightly')).status, 404);
  });

  it('refuses a bad cron, an unknown time zone and an unknown machine with their codes', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const cron = await api.call('PUT', '/schedules/x', { body: { cron: 'every day', machine: 'echo' } });
    assert.equal(cron.status, 400, cron.text);
    assert.equal(cron.json.error.code, 'INVALID_SCHEDULE');
    assert.equal(cron.json.error.field, 'cron');
    const tz = await api.call('PUT', '/schedules/x', {
      body: { everyMs: 1000, timezone: 'Nowhere/X', machine: 'echo' },
    });
    assert.equal(tz.json.error.field, 'timezone');
    const m = await api.call('PUT', '/schedules/x', { body: { everyMs: 1000, machine: 'nope' } });
    assert.equal(m.json.error.code, 'UNKNOWN_MACHINE');
    assert.equal((await api.call('POST', '/schedules/none/resume')).status, 404);
  });
});
