// Webhooks on the embedded MemoryStore (what `npm start` runs without REDIS_URL): a Supervisor
// and a Client on one MemoryStore deliver signed hooks to a local receiver, retrying a 500; a
// delivery still owed when the process stops is kept in the data file and sent after a restart.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineJob, verifyWebhook, type DeliveryResult } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { MemoryHarness } from '../support/memoryHarness.js';
import { Receiver, newSecret } from './receiver.js';
import { redrivenDeadLetterIsToldAgain } from './redriveCase.js';

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

  it('tells the end of a redriven dead letter’s new run too', async () => {
    h = new MemoryHarness();
    rx = await new Receiver().start();
    await redrivenDeadLetterIsToldAgain(h, rx);
  });

  it('keeps a delivery still owed in the data file, and sends it after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'f-memhooks-'));
    try {
      const file = join(dir, 'data.json');
      // A port nothing listens on yet: the receiver is down.
      rx = await new Receiver().start();
      const port = rx.port;
      await rx.stop();
      const results: DeliveryResult[] = [];
      const job = defineJob({ name: 'j', work: () => 'out' });
      const secret = newSecret();
      const first = new MemoryHarness({ dataFile: file });
      h = first;
      await first.started({
        jobs: [job],
        webhooks: { ...FAST_HOOKS, onDelivery: (r) => results.push(r) },
        webhookAllowHosts: ['127.0.0.1'],
      });
      const id = await first
        .client({ jobs: [job] })
        .enqueue('j', null, { webhook: { url: `http://127.0.0.1:${port}/final`, secret } });
      await eventually(() => results.includes('retrying'), 10_000);
      await first.close();

      rx = await new Receiver().start(port);
      h = new MemoryHarness({ dataFile: file });
      await h.started({ jobs: [job], webhooks: FAST_HOOKS, webhookAllowHosts: ['127.0.0.1'] });
      // Nothing runs the job again (it is done): only the kept chain can send this.
      await eventually(() => rx.at('/final').length === 1, 10_000);
      const got = rx.at('/final')[0]!;
      assert.equal(verifyWebhook({ secret, headers: got.headers, body: got.body }), true);
      assert.equal((JSON.parse(got.body) as { data: { id: string } }).data.id, id);
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
