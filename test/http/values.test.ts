// The wire form of a job's values over HTTP (docs/http.md#values): inputs are plain JSON, stored
// as sent (a `$codec` key included, never revived); a value JSON cannot carry that the job's code
// put in its output comes back as the value codec's envelope, which superjson revives exactly.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { SuperJSON } from 'superjson';
import { defineJob, Supervisor } from '../../src/index.js';
import { FAST } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

const stamp = defineJob({
  name: 'stamp',
  work: async ({ input }: { input: { ms: number } }) => ({ at: new Date(input.ms), tags: new Set(['a']) }),
});
const echo = defineJob({ name: 'echo', work: async ({ input }: { input: unknown }) => input });

describe('HTTP API and the values a job holds', () => {
  let redis: TestRedis;
  let api: Api;
  let supervisor: Supervisor;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    await supervisor.stop({ graceMs: 0 });
    await api.close();
  });

  async function start(): Promise<void> {
    api = await startApi(redis, { jobs: [stamp, echo] });
    supervisor = new Supervisor({
      store: api.store,
      jobs: [stamp, echo],
      logger: pino({ level: 'silent' }),
      ...FAST,
    });
    await supervisor.start();
  }

  it('answers an output holding a Date and a Set as the envelope superjson revives', async () => {
    await start();
    const res = await api.call('POST', '/jobs?wait=10s', {
      body: { machine: 'stamp', input: { ms: 86_400_000 } },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.output, {
      $codec: 'superjson',
      json: { at: '1970-01-02T00:00:00.000Z', tags: ['a'] },
      meta: { values: { at: ['Date'], tags: ['set'] }, v: 1 },
    });
    const { json, meta } = res.json.output as { json: never; meta: never };
    assert.deepEqual(new SuperJSON().deserialize({ json, meta }), {
      at: new Date(86_400_000),
      tags: new Set(['a']),
    });
    const read = await api.call('GET', `/jobs/${res.json.id as string}`);
    assert.deepEqual(read.json.output, res.json.output);
  });

  it('gives the job a plain JSON input with a $codec key exactly as sent, never revived', async () => {
    await start();
    const input = { $codec: 'superjson', json: '2020-01-01T00:00:00.000Z', meta: { values: ['Date'] } };
    const res = await api.call('POST', '/jobs?wait=10s', { body: { machine: 'echo', input } });
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'done');
    // The job saw the object (not a revived Date): its output is that object.
    const job = await api.store.getJob(res.json.id as string);
    assert.deepEqual(job!.output, input);
    // A reader gets it wrapped in an envelope (no meta), so it is not read as one.
    const read = await api.call('GET', `/jobs/${res.json.id as string}`);
    assert.deepEqual(read.json.input, { $codec: 'superjson', json: input });
  });
});
