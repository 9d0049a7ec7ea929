// URLs the router itself refuses (a malformed percent-escape, a path parameter past its length
// limit) are answered in the API's one error shape, `{ error: { code, message } }`, like every
// other refusal, and the server keeps answering.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

describe('HTTP API malformed URLs', () => {
  let redis: TestRedis;
  let api: Api;
  before(async () => {
    redis = await startRedis();
    api = await startApi(redis);
  });
  after(async () => {
    await api.close();
    await redis.stop();
  });

  it('answers a 4xx in the one error shape', async () => {
    for (const [path, status] of [
      ['/jobs/%FF', 400],
      ['/jobs/%E0%A4%A', 400],
      [`/jobs/${'a'.repeat(10_000)}`, 414],
    ] as const) {
      const res = await api.call('GET', path);
      assert.equal(res.status, status, path.slice(0, 40));
      assert.equal(typeof res.json.error, 'object', res.text.slice(0, 200));
      assert.equal(typeof res.json.error.code, 'string');
      assert.equal(typeof res.json.error.message, 'string');
    }
    assert.equal((await api.call('GET', '/healthz')).status, 200);
  });
});
