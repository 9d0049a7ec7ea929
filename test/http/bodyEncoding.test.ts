// A body whose bytes JSON.parse would quietly change is refused, not stored changed: bytes that
// are not UTF-8 (decoded loosely they become U+FFFD) and numbers past the double range (1e400
// parses as Infinity, which is stored as null).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, TOKEN, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: ({ input }: { input: unknown }) => input });

describe('HTTP API body encoding', () => {
  let redis: TestRedis;
  let api: Api;
  /** Jobs the tests so far meant to make: a refused body adds none. */
  let made = 0;
  before(async () => {
    redis = await startRedis();
    api = await startApi(redis, { jobs: [echo] });
  });
  after(async () => {
    await api.close();
    await redis.stop();
  });
  afterEach(async () => {
    const page = await api.call('GET', '/jobs');
    assert.equal(page.status, 200);
    assert.equal(page.json.jobs.length, made, 'a refused body wrote no job');
  });

  const post = async (body: Buffer | string) => {
    const res = await fetch(`${api.url}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body,
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  it('answers 400 to a body that is not UTF-8 instead of storing replacement characters', async () => {
    const body = Buffer.concat([
      Buffer.from('{"machine":"echo","input":"'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"}'),
    ]);
    const res = await post(body);
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'INVALID_JSON');
    assert.match(res.json.error.message, /UTF-8/);
  });

  it('answers 400 to a number past the double range, anywhere in the body, instead of storing null', async () => {
    for (const text of [
      '{"machine":"echo","input":1e400}',
      '{"machine":"echo","input":{"a":[-1E+999]}}',
      `{"machine":"echo","input":${'9'.repeat(400)}}`,
    ]) {
      const res = await post(text);
      assert.equal(res.status, 400, text.slice(0, 60));
      assert.equal(res.json.error.code, 'INVALID_JSON');
      assert.match(res.json.error.message, /number/);
    }
  });

  it('answers 400 naming delayMs to a delay past ten years (its run time would lose precision)', async () => {
    for (const delayMs of ['1e300', '9007199254740993', '315360000001']) {
      const res = await post(`{"machine":"echo","input":1,"delayMs":${delayMs}}`);
      assert.equal(res.status, 400, delayMs);
      assert.equal(res.json.error.field, 'delayMs');
    }
  });

  it('still takes large finite numbers and text that merely looks like one', async () => {
    const res = await post('{"machine":"echo","input":{"n":1e300,"s":"1e400","t":"\\u0031e999"}}');
    assert.equal(res.status, 202);
    made++;
    const job = await api.call('GET', `/jobs/${res.json.job_id}`);
    assert.deepEqual(job.json.input, { n: 1e300, s: '1e400', t: '1e999' });
  });
});
