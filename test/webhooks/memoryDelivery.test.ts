// Webhooks on the embedded MemoryStore (what `npm start` runs without REDIS_URL): a Supervisor
// and a Client on one MemoryStore deliver signed hooks to a local receiver, retrying a 500.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, verifyWebhook, type DeliveryResult } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { MemoryHarness } from '../support/memoryHarness.js';
import { Receiver, newSecret } from './receiver.js';

const FAST_HOOKS = { retryDelayMs: 100, maxDelayMs: 400, idleCheckMs: 200 };

describe('webhooks on a MemoryStore', () => {
  let h: MemoryHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.stop();
  });

  it('delivers the final record signed, sending it again with the same webhook-id after a 500', async () => {
    h = new MemoryHarness();
    rx = await new Receiver().start();
    rx.answers.set('/final', [500]);
    const secret = newSecret();
    const results: DeliveryResult[] = [];
    const job = defineJob({
      name: 'add',
      work: ({ input }: { input: { a: number; b: number } }) => input.a + input.b,
    });
    await h.started({
      jobs: [job],
      webhooks: { ...FAST_HOOKS, onDelivery: (r) => results.push(r) },
      webhookAllowHosts: ['127.0.0.1'],
    });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue(
      'add',
      { a: 2, b: 3 },
      { webhook: { url: rx.url('/final'), stateUrl: rx.url('/state'), secret } },
    );
    await eventually(() => rx.at('/final').length === 2, 10_000);
    const [first, second] = rx.at('/final');
    assert.equal(first!.headers['webhook-id'], second!.headers['webhook-id'], 'one webhook-id across tries');
    const headers = second!.headers as Record<string, string>;
    assert.equal(verifyWebhook({ secret, headers, body: second!.body }), true);
    assert.equal(verifyWebhook({ secret: newSecret(), headers, body: second!.body }), false);
    const body = JSON.parse(second!.body) as { type: string; data: unknown };
    assert.equal(body.type, 'job.finished');
    assert.deepEqual(body.data, JSON.parse(JSON.stringify(await client.get(id))));
    await eventually(() => results.filter((r) => r === 'delivered').length >= 1, 5_000);
    assert.equal(results.filter((r) => r === 'retrying').length, 1);
    await eventually(
      () =>
        rx
          .at('/state')
          .map((r) => (JSON.parse(r.body) as { data: { status: string } }).data.status)
          .join() === 'queued,working,done',
      10_000,
    );
  });
});
