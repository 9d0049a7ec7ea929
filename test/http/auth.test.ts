// Bearer tokens: 401 without a valid one, 403 when it lacks the route's scope, open routes by
// configuration, and the token list from MACHINIST_TOKENS.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, defineJob, RedisStore } from '../../src/index.js';
import { parseTokenList, TokenTable } from '../../src/http/auth.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { READ_TOKEN, startApi, TOKEN, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: () => 1 });

describe('HTTP API auth', () => {
  let redis: TestRedis;
  let api: Api | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('answers 401 with WWW-Authenticate without a token, or with a wrong or malformed one', async () => {
    api = await startApi(redis, { jobs: [echo] });
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` },
      { authorization: TOKEN },
    ]) {
      const res = await api.call('GET', '/jobs', { token: null, headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.json.error.code, 'UNAUTHORIZED');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
    const post = await api.call('POST', '/jobs', { token: null, body: { machine: 'echo' } });
    assert.equal(post.status, 401);
    const page = await api.call('GET', '/jobs');
    assert.deepEqual(page.json.jobs, [], 'nothing was enqueued without a token');
  });

  it('answers 403 to a read-only token on routes that write, and serves it the reads', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const w = await api.call('POST', '/jobs', { body: { machine: 'echo' } });
    const id = w.json.job_id as string;
    for (const [method, path, body] of [
      ['POST', '/jobs', { machine: 'echo' }],
      ['POST', `/jobs/${id}/cancel`, undefined],
      ['POST', `/jobs/${id}/events`, { event: { type: 'X' } }],
      ['POST', `/dead-letters/${id}/retry`, undefined],
      ['DELETE', `/dead-letters/${id}`, undefined],
    ] as const) {
      const res = await api.call(method, path, { token: READ_TOKEN, body });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.json.error.code, 'FORBIDDEN');
      assert.match(res.json.error.message, /'write'/);
    }
    assert.equal((await api.call('GET', `/jobs/${id}`, { token: READ_TOKEN })).json.status, 'queued');
    for (const path of ['/jobs', `/jobs/${id}/events`, '/dead-letters', '/machines', '/openapi.json'])
      assert.equal((await api.call('GET', path, { token: READ_TOKEN })).status, 200, path);
  });

  it('leaves /healthz open by default, and only the routes configured as open', async () => {
    api = await startApi(redis, { jobs: [echo] });
    assert.equal((await api.call('GET', '/healthz', { token: null })).status, 200);
    await api.close();
    api = await startApi(redis, { jobs: [echo], openRoutes: ['/machines'] });
    assert.equal((await api.call('GET', '/healthz', { token: null })).status, 401);
    assert.equal((await api.call('GET', '/machines', { token: null })).status, 200);
  });

  it('reads tokens and their scopes from MACHINIST_TOKENS', async () => {
    assert.deepEqual(parseTokenList(' alpha-secret , beta-secret:read,gamma:x:write,, '), [
      { token: 'alpha-secret' },
      { token: 'beta-secret', scopes: ['read'] },
      { token: 'gamma:x', scopes: ['write'] },
    ]);
    const before = process.env.MACHINIST_TOKENS;
    process.env.MACHINIST_TOKENS = 'env-token-12345:read';
    const store = new RedisStore({ url: redis.url, prefix: uniquePrefix('auth') });
    try {
      const app = createServer({ store, jobs: [echo], logger: false });
      const get = await app.inject({ url: '/jobs', headers: { authorization: 'Bearer env-token-12345' } });
      assert.equal(get.statusCode, 200);
      const post = await app.inject({
        method: 'POST',
        url: '/jobs',
        headers: { authorization: 'Bearer env-token-12345' },
        payload: { machine: 'echo' },
      });
      assert.equal(post.statusCode, 403);
      await app.close();
    } finally {
      if (before === undefined) delete process.env.MACHINIST_TOKENS;
      else process.env.MACHINIST_TOKENS = before;
      await store.close();
    }
  });

  it('refuses to build a server without tokens unless auth is turned off', async () => {
    const before = process.env.MACHINIST_TOKENS;
    delete process.env.MACHINIST_TOKENS;
    const store = new RedisStore({ url: redis.url, prefix: uniquePrefix('auth') });
    try {
      assert.throws(() => createServer({ store, logger: false }), /no tokens/);
      assert.throws(() => createServer({ store, tokens: ['short'], logger: false }), /at least 8/);
      const open = createServer({ store, auth: false, logger: false });
      assert.equal((await open.inject({ url: '/jobs' })).statusCode, 200);
      await open.close();
    } finally {
      if (before !== undefined) process.env.MACHINIST_TOKENS = before;
      await store.close();
    }
  });

  it('matches a token by its digest: every configured token is compared, of any length', () => {
    const table = new TokenTable(['first-token', { token: 'second-much-longer-token', scopes: ['read'] }]);
    assert.deepEqual([...table.scopesOf('first-token')!], ['read', 'write']);
    assert.deepEqual([...table.scopesOf('second-much-longer-token')!], ['read']);
    assert.equal(table.scopesOf(''), null);
    assert.equal(table.scopesOf('first-toke'), null);
    assert.equal(table.scopesOf('x'.repeat(10_000)), null);
  });
});
