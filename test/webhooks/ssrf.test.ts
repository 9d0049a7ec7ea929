import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, ValidationError, type DeliveryResult } from '../../src/index.js';
import { sendWebhook } from '../../src/webhooks/sendWebhook.js';
import { isPublicAddress } from '../../src/webhooks/addressGuard.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { Receiver } from './receiver.js';

const send = (url: string, allow: string[] = []) =>
  sendWebhook(url, { headers: {}, body: '{}', allowHosts: new Set(allow), timeoutMs: 2_000 });

describe('webhooks: SSRF guard', () => {
  let redis: TestRedis;
  let h: Harness | undefined;
  let rx: Receiver;
  let other: Receiver | undefined;
  before(async () => {
    redis = await startRedis();
    rx = await new Receiver().start();
  });
  after(async () => {
    await rx.stop();
    await redis.stop();
  });
  afterEach(async () => {
    await h?.close();
    await other?.stop();
    h = other = undefined;
  });

  it('refuses loopback, private, link-local, CGNAT, unique-local and IPv4-mapped addresses', () => {
    for (const a of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '::ffff:192.168.0.1',
    ])
      assert.equal(isPublicAddress(a), false, a);
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
    ])
      assert.equal(isPublicAddress(a), true, a);
  });

  it('sends nothing to a refused address, literal or resolved, and connects to none', async () => {
    const before = rx.received.length;
    for (const url of [
      rx.url('/x'),
      `http://10.0.0.1:${rx.port}/x`,
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${rx.port}/x`,
      `http://[::ffff:127.0.0.1]:${rx.port}/x`,
      `http://localhost:${rx.port}/x`,
      `http://2130706433:${rx.port}/x`,
    ]) {
      const out = await send(url);
      assert.equal(out.result, 'refused', `${url}: ${JSON.stringify(out)}`);
    }
    assert.equal(rx.received.length, before, 'the loopback receiver was never reached');
    assert.equal((await send('ftp://example.com/')).result, 'refused');
  });

  it('lets an allow-listed host through, and follows no redirect to a refused one', async () => {
    other = await new Receiver().start(0, '127.0.0.2');
    assert.equal((await send(rx.url('/ok'), ['127.0.0.1'])).result, 'delivered');
    rx.answers.set('/redirect', [{ status: 302, location: other.url('/target', '127.0.0.2') }]);
    const out = await send(rx.url('/redirect'), ['127.0.0.1']);
    assert.equal(out.result, 'failed');
    assert.match((out as { reason: string }).reason, /redirect/);
    assert.equal(other.received.length, 0, 'the redirect target was never reached');
  });

  it('refuses bad webhook options at enqueue, naming the field', async () => {
    h = new Harness(redis);
    const job = defineJob({ name: 'j', work: () => 1 });
    const client = h.client({ jobs: [job] });
    const cases: [unknown, string][] = [
      [{ url: 'ftp://x/' }, 'webhook.url'],
      [{ url: 'not a url' }, 'webhook.url'],
      [{ stateUrl: 'javascript:alert(1)' }, 'webhook.stateUrl'],
      [{}, 'webhook.url'],
      [{ url: 'https://a.example/', secret: 'plain' }, 'webhook.secret'],
      [{ url: 'https://a.example/', bogus: 1 }, 'webhook.bogus'],
      ['https://a.example/', 'webhook'],
      // Credentials in a URL would be copied into logs, events and the dashboard.
      [{ url: 'https://user:pass@a.example/hook' }, 'webhook.url'],
      [{ url: 'https://token@a.example/hook' }, 'webhook.url'],
      [{ stateUrl: 'http://:secret@a.example/' }, 'webhook.stateUrl'],
    ];
    for (const [webhook, field] of cases) {
      await assert.rejects(
        client.enqueue('j', null, { webhook } as never),
        (err: unknown) => err instanceof ValidationError && err.field === field,
        JSON.stringify(webhook),
      );
    }
  });

  it('refuses deliveries to internal addresses by default, and the jobs end done all the same', async () => {
    h = new Harness(redis);
    const results: DeliveryResult[] = [];
    const job = defineJob({ name: 'j', work: () => 'fine' });
    await h.started({ jobs: [job], webhooks: { idleCheckMs: 200, onDelivery: (r) => results.push(r) } });
    const client = h.client({ jobs: [job] });
    const urls = [
      rx.url('/a'),
      'http://169.254.169.254/',
      `http://[::ffff:127.0.0.1]:${rx.port}/`,
      `http://localhost:${rx.port}/`,
    ];
    const ids = await Promise.all(urls.map((url) => client.enqueue('j', null, { webhook: { url } })));
    for (const id of ids)
      assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).output, 'fine');
    await eventually(() => results.length === urls.length, 10_000);
    assert.deepEqual(
      results,
      urls.map(() => 'refused'),
    );
    assert.equal(rx.at('/a').length, 0);
  });
});
