// Bad requests get a clear 4xx naming the problem, write nothing, and leave the server
// answering the next request.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: ({ input }: { input: unknown }) => input });
const resize = defineJob({
  name: 'resize',
  input: z.object({ url: z.string(), sizes: z.array(z.number()) }),
  work: ({ input }) => input.sizes.map((s) => `${input.url}@${s.toFixed(0)}`),
});

describe('HTTP API bad input', () => {
  let redis: TestRedis;
  let api: Api;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    // Nothing any bad request sent was written, and the server still answers.
    const page = await api.call('GET', '/jobs');
    assert.equal(page.status, 200);
    assert.deepEqual(page.json.jobs, [], 'a refused request wrote no job');
    await api.close();
  });

  const json = { 'content-type': 'application/json' };

  it("answers 400 naming the field for an input the job's schema refuses, or no input", async () => {
    api = await startApi(redis, { jobs: [resize] });
    const bad = await api.call('POST', '/jobs', {
      body: { machine: 'resize', input: { url: 'a', sizes: [1, 'x'] } },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.code, 'INVALID_INPUT');
    assert.equal(bad.json.error.machine, 'resize');
    assert.equal(bad.json.error.field, 'input.sizes[1]');
    assert.match(bad.json.error.message, /input\.sizes\[1\]/);
    assert.deepEqual(
      bad.json.error.issues.map((i: { path: string }) => i.path),
      ['input.sizes[1]'],
    );
    const none = await api.call('POST', '/jobs', { body: { machine: 'resize' } });
    assert.equal(none.status, 400);
    assert.equal(none.json.error.field, 'input');
  });

  it('answers 413 for a body over the limit', async () => {
    api = await startApi(redis, { jobs: [echo], bodyLimit: 10_000 });
    const res = await api.call('POST', '/jobs', { body: { machine: 'echo', input: 'x'.repeat(20_000) } });
    assert.equal(res.status, 413);
    assert.equal(res.json.error.code, 'PAYLOAD_TOO_LARGE');
    assert.match(res.json.error.message, /10000-byte limit/);
  });

  it('answers 413 past the default limit of 1 MiB', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const over = await api.call('POST', '/jobs', {
      body: { machine: 'echo', input: 'x'.repeat(1024 * 1024) },
    });
    assert.equal(over.status, 413);
  });

  it('answers 415 for a body that is not JSON, and 400 for malformed JSON', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const text = await api.call('POST', '/jobs', {
      raw: 'machine=echo',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(text.status, 415);
    assert.equal(text.json.error.code, 'UNSUPPORTED_MEDIA_TYPE');
    const form = await api.call('POST', '/jobs', {
      raw: 'machine=echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    const broken = await api.call('POST', '/jobs', { raw: '{"machine":"echo",', headers: json });
    assert.equal(broken.status, 400);
    assert.equal(broken.json.error.code, 'INVALID_JSON');
    const empty = await api.call('POST', '/jobs', { raw: '', headers: json });
    assert.equal(empty.status, 400);
  });

  it('answers 400 naming the field for schema errors', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const cases: [unknown, string][] = [
      [{ input: 1 }, 'machine'],
      [{ machine: 'echo', priority: 'urgent' }, 'priority'],
      [{ machine: 'echo', maxAttempts: 0 }, 'maxAttempts'],
      [{ machine: 'echo', delayMs: -1 }, 'delayMs'],
      [{ machine: 'echo', queue: 'bad queue' }, 'queue'],
      [{ machine: 'echo', priorty: 'high' }, 'priorty'],
      [[1, 2], 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await api.call('POST', '/jobs', { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json.error.code, 'INVALID_INPUT');
      assert.equal(res.json.error.field, field, JSON.stringify(res.json));
      assert.ok(res.json.error.message.includes(field), res.json.error.message);
    }
    const limit = await api.call('GET', '/jobs?limit=0');
    assert.equal(limit.status, 400);
    assert.equal(limit.json.error.field, 'limit');
    const status = await api.call('GET', '/jobs?status=running');
    assert.equal(status.json.error.field, 'status');
    const wait = await api.call('POST', '/jobs?wait=forever', { body: { machine: 'echo' } });
    assert.equal(wait.status, 400);
    assert.equal(wait.json.error.field, 'wait');
    const tooLong = await api.call('POST', '/jobs?wait=1h', { body: { machine: 'echo' } });
    assert.equal(tooLong.status, 400);
  });

  it('answers 400 naming an unknown machine', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const res = await api.call('POST', '/jobs', { body: { machine: 'resize', input: {} } });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'UNKNOWN_MACHINE');
    assert.equal(res.json.error.machine, 'resize');
    assert.match(res.json.error.message, /'resize'/);
  });

  it('refuses the keys __proto__, constructor and prototype anywhere in the body', async () => {
    api = await startApi(redis, { jobs: [echo] });
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      for (const raw of [
        `{"machine":"echo","input":{"a":{"${key}":{"polluted":true}}}}`,
        `{"machine":"echo","${key}":{}}`,
      ]) {
        const res = await api.call('POST', '/jobs', { raw, headers: json });
        assert.equal(res.status, 400, raw);
        assert.equal(res.json.error.code, 'FORBIDDEN_KEY');
        assert.equal(res.json.error.field, key);
      }
    }
    // Written with an escape, it is the same key.
    const escaped = await api.call('POST', '/jobs', {
      raw: '{"machine":"echo","input":{"\\u005f_proto__":{"polluted":true}}}',
      headers: json,
    });
    assert.equal(escaped.status, 400);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
    // As a value it is only text (on another queue: the check after each test looks at 'default').
    const value = await api.call('POST', '/jobs', {
      body: { machine: 'echo', queue: 'values', input: { note: '__proto__' } },
    });
    assert.equal(value.status, 202);
  });

  it('refuses nesting deeper than the limit', async () => {
    api = await startApi(redis, { jobs: [echo], maxDepth: 20 });
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const res = await api.call('POST', '/jobs', {
      raw: `{"machine":"echo","input":${deep(25)}}`,
      headers: json,
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'TOO_DEEP');
    assert.match(res.json.error.message, /20 levels/);
  });

  it('refuses by default an input deeper than the runtime takes (1,000 levels)', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const res = await api.call('POST', '/jobs', {
      raw: `{"machine":"echo","input":${deep(1001)}}`,
      headers: json,
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'TOO_DEEP');
  });

  it('answers 404 in the one error shape for unknown routes and unknown jobs', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const route = await api.call('GET', '/nothing-here');
    assert.equal(route.status, 404);
    assert.equal(route.json.error.code, 'NOT_FOUND');
    const job = await api.call('GET', '/jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV');
    assert.equal(job.status, 404);
    assert.equal(job.json.error.code, 'JOB_NOT_FOUND');
    const lastEventId = await api.call('GET', '/events', { headers: { 'last-event-id': 'yesterday' } });
    assert.equal(lastEventId.status, 400);
    assert.equal(lastEventId.json.error.field, 'Last-Event-ID');
  });

  it('survives a burst of malformed requests and keeps answering', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const bodies = ['{', '[', 'null', '"x"', '{"machine":null}', '\u0000', '{"a":' + '{"a":'.repeat(5000)];
    const results = await Promise.all(bodies.map((raw) => api.call('POST', '/jobs', { raw, headers: json })));
    for (const r of results) assert.ok(r.status >= 400 && r.status < 500, `${r.status} ${r.text}`);
  });
});
