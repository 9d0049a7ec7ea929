// The dashboard's page and files: served from the package (no CDN), open without a token,
// while its data routes go through the API's auth; asset names cannot reach outside.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../../src/http/createServer.js';
import { readAsset } from '../../src/dashboard/assets.js';
import { RedisStore } from '../../src/index.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

describe('dashboard assets', () => {
  let redis: TestRedis;
  let store: RedisStore;
  let app: FastifyInstance;
  before(async () => {
    redis = await startRedis();
    store = new RedisStore({ url: redis.url, prefix: uniquePrefix('dash') });
    app = createServer({ store, tokens: ['assets-test-token'], logger: false });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await store.close();
    await redis.stop();
  });

  it('serves the page and its scripts without a token, and nothing the page loads is off-site', async () => {
    const page = await app.inject({ url: '/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    const refs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(refs.length >= 3);
    for (const ref of refs.filter((r) => !r.startsWith('#'))) {
      assert.ok(ref.startsWith('/'), `${ref} is served by the server itself`);
      const res = await app.inject({ url: ref });
      assert.equal(res.statusCode, 200, ref);
    }
    const app_js = await app.inject({ url: '/dashboard/assets/app.js' });
    assert.match(app_js.headers['content-type'] as string, /javascript/);
    assert.doesNotMatch(app_js.body, /https?:\/\//, 'no URL to anywhere else');
    assert.doesNotMatch(app_js.body, /^import type /m, 'TypeScript was compiled away');
  });

  it('answers its data routes only with a token, like the API', async () => {
    assert.equal((await app.inject({ url: '/dashboard/api/config' })).statusCode, 401);
    const ok = await app.inject({
      url: '/dashboard/api/config',
      headers: { authorization: 'Bearer assets-test-token' },
    });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().readOnly, true, 'read-only unless configured');
  });

  it('refuses asset names that are not one file of its own', async () => {
    for (const name of ['../assets.ts', '..%2Fassets.ts', 'app.ts', '.env', 'nope.js']) {
      assert.equal(await readAsset(decodeURIComponent(name)), null, name);
      // 404, or 401 where the path leaves the open asset route and meets the API's auth.
      const res = await app.inject({ url: `/dashboard/assets/${name}` });
      assert.ok([401, 404].includes(res.statusCode), `${name}: ${res.statusCode}`);
    }
  });
});
