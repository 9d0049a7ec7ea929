import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { defineJob, verifyWebhook, type DeliveryResult } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { Receiver, newSecret } from './receiver.js';
import { redrivenDeadLetterIsToldAgain } from './redriveCase.js';

const FAST_HOOKS = { retryDelayMs: 100, maxDelayMs: 400, idleCheckMs: 200 };

describe('webhooks: delivery', () => {
  let redis: TestRedis;
  let h: Harness;
  let rx: Receiver;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    await h.close();
    await rx.stop();
  });

  const statuses = (r: Receiver, path: string) =>
    r.at(path).map((x) => (JSON.parse(x.body) as { data: { status: string } }).data.status);

  it('POSTs the final record after the result is stored, signed so standardwebhooks and verifyWebhook accept it', async () => {
    h = new Harness(redis);
    rx = await new Receiver().start();
    const secret = newSecret();
    const job = defineJob({
      name: 'add',
      work: ({ input }: { input: { a: number; b: number } }) => input.a + input.b,
    });
    await h.started({ jobs: [job], webhooks: FAST_HOOKS, webhookAllowHosts: ['127.0.0.1'] });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('add', { a: 2, b: 3 }, { webhook: { url: rx.url('/final'), secret } });
    await eventually(() => rx.at('/final').length > 0, 10_000);
    const [got] = rx.at('/final');
    const body = JSON.parse(got!.body) as {
      type: string;
      data: { id: string; status: string; output: number };
    };
    assert.equal(body.type, 'job.finished');
    assert.equal(body.data.id, id);
    assert.equal(body.data.status, 'done');
    assert.equal(body.data.output, 5);
    // The record sent is the stored one.
    const stored = await client.get(id);
    assert.deepEqual(body.data, JSON.parse(JSON.stringify(stored)));
    const headers = got!.headers as Record<string, string>;
    assert.doesNotThrow(() => new Webhook(secret).verify(got!.body, headers));
    assert.equal(verifyWebhook({ secret, headers, body: got!.body }), true);
    assert.equal(
      verifyWebhook({ secret: newSecret(), headers, body: got!.body }),
      false,
      'another secret fails',
    );
    assert.equal(verifyWebhook({ secret, headers, body: got!.body + ' ' }), false, 'another body fails');
    assert.equal(
      verifyWebhook({
        secret,
        headers: { ...headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) },
        body: got!.body,
      }),
      false,
      'a stale timestamp fails',
    );
  });

  it('POSTs the final record again for a dead letter that was redriven and then finished', async () => {
    h = new Harness(redis);
    rx = await new Receiver().start();
    await redrivenDeadLetterIsToldAgain(h, rx);
  });

  it('POSTs every status change in order for a job that retries', async () => {
    h = new Harness(redis);
    rx = await new Receiver().start();
    let runs = 0;
    const flaky = defineJob({
      name: 'flaky',
      retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 50 } },
      load: async () => 'loaded',
      work: () => {
        if (++runs === 1) throw new Error('first try fails');
        return 'ok';
      },
    });
    await h.started({ jobs: [flaky], webhooks: FAST_HOOKS, webhookAllowHosts: ['127.0.0.1'] });
    const client = h.client({ jobs: [flaky] });
    const id = await client.enqueue('flaky', null, {
      webhook: { stateUrl: rx.url('/state'), url: rx.url('/final') },
    });
    await eventually(() => rx.at('/final').length === 1, 10_000);
    await eventually(() => statuses(rx, '/state').includes('done'), 10_000);
    assert.deepEqual(statuses(rx, '/state'), [
      'queued',
      'loading',
      'working',
      'queued',
      'loading',
      'working',
      'done',
    ]);
    const first = JSON.parse(rx.at('/state')[0]!.body) as { data: { jobId: string; at: number } };
    assert.equal(first.data.jobId, id);
    assert.equal(typeof first.data.at, 'number');
    assert.equal(rx.at('/state')[0]!.headers['webhook-signature'], undefined, 'no secret: not signed');
  });

  it('sends a failed delivery again with the same webhook-id, and never fails the job', async () => {
    h = new Harness(redis);
    rx = await new Receiver().start();
    rx.answers.set('/final', [500, 503]);
    const secret = newSecret();
    const results: DeliveryResult[] = [];
    const job = defineJob({ name: 'j', work: () => 'out' });
    await h.started({
      jobs: [job],
      webhooks: { ...FAST_HOOKS, onDelivery: (r) => results.push(r) },
      webhookAllowHosts: ['127.0.0.1'],
    });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('j', null, { webhook: { url: rx.url('/final'), secret } });
    const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
    assert.equal(rec.status, 'done');
    await eventually(() => rx.at('/final').length === 3, 10_000);
    const ids = new Set(rx.at('/final').map((r) => r.headers['webhook-id']));
    assert.equal(ids.size, 1, 'one webhook-id across the tries');
    for (const r of rx.at('/final')) new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    await eventually(() => results.includes('delivered'), 5_000);
    assert.deepEqual(results, ['retrying', 'retrying', 'delivered']);
    assert.equal((await client.get(id))?.status, 'done', 'the job is untouched by delivery failures');
  });

  it("stops a job's deliveries to a receiver that answers 410", async () => {
    h = new Harness(redis);
    rx = await new Receiver().start();
    rx.answers.set('/state', [410]);
    const results: DeliveryResult[] = [];
    const job = defineJob({ name: 'j', load: async () => 1, work: () => 'out' });
    await h.started({
      jobs: [job],
      webhooks: { ...FAST_HOOKS, onDelivery: (r) => results.push(r) },
      webhookAllowHosts: ['127.0.0.1'],
    });
    const client = h.client({ jobs: [job] });
    await client.enqueue('j', null, { webhook: { url: rx.url('/final'), stateUrl: rx.url('/state') } });
    await eventually(() => rx.at('/final').length === 1, 10_000);
    // Everything scheduled for the state chain is dropped: wait until nothing is due.
    await eventually(async () => (await h.raw.exists(h.key('hookdue'), h.key('hooked'))) === 0, 10_000);
    assert.equal(rx.at('/state').length, 1, 'only the delivery that got 410');
    assert.ok(results.includes('disabled'));
  });

  it('lets a job without hooks cost the dispatcher nothing: it stays dormant', async () => {
    h = new Harness(redis);
    rx = await new Receiver().start();
    const job = defineJob({ name: 'j', work: () => 1 });
    const s = await h.started({ jobs: [job], webhooks: FAST_HOOKS });
    const client = h.client({ jobs: [job] });
    await client.waitForResult(await client.enqueue('j', null), { timeoutMs: 10_000 });
    // The dispatcher of the supervisor's (first) queue: each queue served has its own.
    const d = (s as unknown as { lanes: { webhooks: { mode: string } }[] }).lanes[0]!.webhooks;
    assert.equal(d.mode, 'dormant');
    assert.equal(await h.raw.exists(h.key('hookcursor'), h.key('hooklease')), 0);
  });
});
