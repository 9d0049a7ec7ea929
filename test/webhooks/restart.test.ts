import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { defineJob } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { fixtureEnv, killFixture, spawnFixture } from '../support/spawnFixture.js';
import { Receiver, newSecret } from './receiver.js';

describe('webhooks: durability', () => {
  let redis: TestRedis;
  let h: Harness;
  let rx: Receiver | undefined;
  let child: ChildProcess | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    killFixture(child);
    await h.close();
    await rx?.stop();
  });

  it('delivers from a second worker after the first was SIGKILLed with the delivery still failing', async () => {
    h = new Harness(redis);
    // A port nothing listens on yet: the receiver is down.
    const probe = await new Receiver().start();
    const port = probe.port;
    await probe.stop();
    const worker = spawnFixture('webhookWorker.ts', fixtureEnv(redis, h.prefix));
    child = worker.child;
    await worker.ready;
    const secret = newSecret();
    const client = h.client();
    const id = await client.enqueue(
      'quick',
      { n: 7 },
      { webhook: { url: `http://127.0.0.1:${port}/final`, secret } },
    );
    assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).status, 'done');
    // The job has ended; its final hook has been tried and failed at least once.
    const chain = h.key(`hookq:${id}|f`);
    await eventually(async () => {
      const head = await h.raw.lindex(chain, 0);
      return head !== null && (JSON.parse(head) as { tries: number }).tries >= 1;
    }, 10_000);
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;

    rx = await new Receiver().start(port);
    const job = defineJob({ name: 'quick', work: () => null });
    await h.started({
      jobs: [job],
      webhooks: { retryDelayMs: 100, maxDelayMs: 300, leaseMs: 1000, idleCheckMs: 200 },
      webhookAllowHosts: ['127.0.0.1'],
    });
    await eventually(() => rx!.at('/final').length > 0, 15_000);
    const got = rx.at('/final')[0]!;
    new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    const body = JSON.parse(got.body) as { data: { id: string; output: unknown } };
    assert.equal(body.data.id, id);
    assert.deepEqual(body.data.output, { echoed: { n: 7 } });
    await eventually(async () => (await h.raw.exists(chain, h.key('hookdue'))) === 0, 10_000);
    assert.equal(rx.at('/final').length, 1, 'delivered once');
  });
});
