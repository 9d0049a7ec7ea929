// POST /triggers/<name> over a real socket: signatures (Standard Webhooks, GitHub-style HMAC,
// Stripe), the dedupe key from the request, and what is refused before anything is enqueued.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { defineJob, defineTrigger } from '../../src/index.js';
import { signWebhook } from '../../src/webhooks/signature.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: ({ input }: { input: unknown }) => input });
const SW_SECRET = 'whsec_' + randomBytes(32).toString('base64');
const GH_SECRET = 'gh-secret-123';
const STRIPE_SECRET = 'whsec_stripe_test_123';

const triggers = [
  defineTrigger({
    name: 'sw',
    machine: 'echo',
    verify: { scheme: 'standardWebhooks', secret: SW_SECRET },
    input: (body) => ({ got: (body as { n: number }).n }),
  }),
  defineTrigger({
    name: 'github',
    machine: 'echo',
    verify: { scheme: 'hmacSha256', secret: GH_SECRET },
    dedupe: { header: 'x-github-delivery' },
  }),
  defineTrigger({
    name: 'stripe',
    machine: 'echo',
    verify: { scheme: 'stripe', secret: STRIPE_SECRET },
    dedupe: { key: (body) => (body as { id?: string }).id },
  }),
  defineTrigger({ name: 'open', machine: 'echo', dedupe: false }),
];

describe('HTTP triggers', () => {
  let redis: TestRedis;
  let api: Api;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => api.close());

  const jobs = async () => (await api.call('GET', '/jobs')).json.jobs as { id: string; input: unknown }[];
  const sw = (body: string, id: string, ts = Math.floor(Date.now() / 1000)) => ({
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': signWebhook(SW_SECRET, id, ts, body),
  });

  it('Standard Webhooks: a signed request enqueues the mapped input once per webhook-id, with no bearer token', async () => {
    api = await startApi(redis, { jobs: [echo], triggers });
    const body = JSON.stringify({ n: 5 });
    const a = await api.call('POST', '/triggers/sw', { raw: body, headers: sw(body, 'msg_1'), token: null });
    assert.equal(a.status, 202, a.text);
    const retry = await api.call('POST', '/triggers/sw', {
      raw: body,
      headers: sw(body, 'msg_1'),
      token: null,
    });
    assert.equal(retry.json.job_id, a.json.job_id, "a sender's retry enqueues once");
    const other = await api.call('POST', '/triggers/sw', {
      raw: body,
      headers: sw(body, 'msg_2'),
      token: null,
    });
    assert.notEqual(other.json.job_id, a.json.job_id);
    const list = await jobs();
    assert.equal(list.length, 2);
    assert.deepEqual(list.find((j) => j.id === a.json.job_id)?.input, { got: 5 });
  });

  it('refuses a bad, missing or stale signature with 401 BAD_SIGNATURE, enqueuing nothing', async () => {
    api = await startApi(redis, { jobs: [echo], triggers });
    const body = JSON.stringify({ n: 1 });
    const tampered = await api.call('POST', '/triggers/sw', {
      raw: JSON.stringify({ n: 2 }),
      headers: sw(body, 'm'),
      token: null,
    });
    const missing = await api.call('POST', '/triggers/github', { raw: body, token: null });
    const stale = await api.call('POST', '/triggers/sw', {
      raw: body,
      headers: sw(body, 'm', Math.floor(Date.now() / 1000) - 3600),
      token: null,
    });
    for (const r of [tampered, missing, stale]) {
      assert.equal(r.status, 401, r.text);
      assert.equal(r.json.error.code, 'BAD_SIGNATURE');
    }
    assert.match(missing.json.error.message, /x-hub-signature-256 header is missing/);
    assert.equal((await jobs()).length, 0);
  });

  it('GitHub-style X-Hub-Signature-256 and Stripe-Signature: valid ones enqueue, deduped by delivery and event id', async () => {
    api = await startApi(redis, { jobs: [echo], triggers });
    const body = JSON.stringify({ action: 'push' });
    const gh = (sig: string) => ({
      'content-type': 'application/json',
      'x-github-delivery': 'd-1',
      'x-hub-signature-256': sig,
    });
    const good = 'sha256=' + createHmac('sha256', GH_SECRET).update(body).digest('hex');
    const a = await api.call('POST', '/triggers/github', { raw: body, headers: gh(good), token: null });
    const b = await api.call('POST', '/triggers/github', { raw: body, headers: gh(good), token: null });
    assert.equal(a.status, 202, a.text);
    assert.equal(b.json.job_id, a.json.job_id);
    const bad = await api.call('POST', '/triggers/github', {
      raw: body,
      headers: gh('sha256=' + createHmac('sha256', 'wrong').update(body).digest('hex')),
      token: null,
    });
    assert.equal(bad.status, 401);

    const event = JSON.stringify({ id: 'evt_1', type: 'charge.succeeded' });
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', STRIPE_SECRET).update(`${t}.${event}`).digest('hex');
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'stripe-signature': `t=${t},v1=${v1}`,
    };
    const s1 = await api.call('POST', '/triggers/stripe', { raw: event, headers, token: null });
    const s2 = await api.call('POST', '/triggers/stripe', { raw: event, headers, token: null });
    assert.equal(s1.status, 202, s1.text);
    assert.equal(s2.json.job_id, s1.json.job_id);
    const forged = await api.call('POST', '/triggers/stripe', {
      raw: event,
      headers: { ...headers, 'stripe-signature': `t=${t},v1=${'0'.repeat(64)}` },
      token: null,
    });
    assert.equal(forged.status, 401);
    assert.equal((await jobs()).length, 2);
  });

  it('unknown trigger 404, bad JSON 400, too large 413, an unverified trigger needs the bearer token; none enqueues', async () => {
    api = await startApi(redis, { jobs: [echo], triggers, bodyLimit: 1024 });
    const unknown = await api.call('POST', '/triggers/nope', { body: {}, token: null });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error.code, 'TRIGGER_NOT_FOUND');
    const notJson = '{"n":';
    const badJson = await api.call('POST', '/triggers/sw', {
      raw: notJson,
      headers: sw(notJson, 'x'),
      token: null,
    });
    assert.equal(badJson.status, 400);
    assert.equal(badJson.json.error.code, 'INVALID_JSON');
    const big = JSON.stringify({ s: 'x'.repeat(2000) });
    const tooLarge = await api.call('POST', '/triggers/sw', { raw: big, headers: sw(big, 'y'), token: null });
    assert.equal(tooLarge.status, 413);
    const noToken = await api.call('POST', '/triggers/open', { body: { n: 1 }, token: null });
    assert.equal(noToken.status, 401);
    assert.equal(noToken.json.error.code, 'UNAUTHORIZED');
    assert.equal((await jobs()).length, 0);
    const withToken = await api.call('POST', '/triggers/open', { body: { n: 1 } });
    assert.equal(withToken.status, 202, withToken.text);
    assert.equal((await jobs()).length, 1);
  });

  it('refuses a trigger that could not work when it is declared', () => {
    assert.throws(() => defineTrigger({ name: 'a b', machine: 'echo' }), /name/);
    assert.throws(
      () =>
        defineTrigger({
          name: 'x',
          machine: 'echo',
          verify: { scheme: 'standardWebhooks', secret: 'plain-secret' },
        }),
      /whsec_/,
    );
    assert.throws(
      () => defineTrigger({ name: 'x', machine: 'echo', dedupe: {} }),
      /header or a key function/,
    );
  });
});
