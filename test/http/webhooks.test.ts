// POST /jobs with webhookUrl / stateWebhookUrl / webhookSecret: the HTTP body's fields become the
// job's webhook option, so a service in another language is told of the result by a signed POST.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { defineJob, Supervisor } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';
import { Receiver, newSecret } from '../webhooks/receiver.js';

const FAST_HOOKS = { retryDelayMs: 100, maxDelayMs: 400, idleCheckMs: 200 };
const add = defineJob({
  name: 'add',
  work: ({ input }: { input: { a: number; b: number } }) => input.a + input.b,
});

describe('HTTP: webhooks of a job submitted over HTTP', () => {
  let redis: TestRedis;
  let api: Api;
  let rx: Receiver;
  let supervisor: Supervisor;
  before(async () => {
    redis = await startRedis();
    api = await startApi(redis, { jobs: [add] });
    rx = await new Receiver().start();
    supervisor = new Supervisor({
      store: api.store,
      jobs: [add],
      webhooks: FAST_HOOKS,
      webhookAllowHosts: ['127.0.0.1'],
    });
    await supervisor.start();
  });
  after(async () => {
    await supervisor.stop({ graceMs: 1000 });
    await rx.stop();
    await api.close();
    await redis.stop();
  });

  it('delivers the final record and every status change, signed with the body’s secret', async () => {
    const secret = newSecret();
    const res = await api.call('POST', '/jobs', {
      body: {
        machine: 'add',
        input: { a: 1, b: 2 },
        webhookUrl: rx.url('/final'),
        stateWebhookUrl: rx.url('/state'),
        webhookSecret: secret,
      },
    });
    assert.equal(res.status, 202, res.text);
    const id = res.json.job_id as string;
    await eventually(() => rx.at('/final').length > 0, 10_000);
    const [got] = rx.at('/final');
    const body = JSON.parse(got!.body) as { type: string; data: { id: string; output: number } };
    assert.equal(body.data.id, id);
    assert.equal(body.data.output, 3);
    assert.doesNotThrow(() => new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>));
    await eventually(() => rx.at('/state').some((r) => r.body.includes('"done"')), 10_000);
  });

  it('refuses a webhook URL that is not http(s) with 400 naming the field, and makes no job', async () => {
    const res = await api.call('POST', '/jobs', {
      body: { machine: 'add', input: { a: 1, b: 2 }, webhookUrl: 'file:///etc/passwd' },
    });
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.error.message, /webhook\.url/, res.text);
    const list = await api.call('GET', '/jobs?machine=add');
    assert.equal(list.json.jobs.length, 1, 'only the first test’s job exists');
  });

  it('refuses webhook URLs that carry credentials with 400 naming the field, and makes no job', async () => {
    for (const [body, field] of [
      [{ webhookUrl: 'https://ada:s3cr3t@hooks.example.com/final' }, 'webhook.url'],
      [{ stateWebhookUrl: 'https://ada:s3cr3t@hooks.example.com/state' }, 'webhook.stateUrl'],
    ] as const) {
      const res = await api.call('POST', '/jobs', {
        body: { machine: 'add', input: { a: 1, b: 2 }, ...body },
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error.code, 'INVALID_INPUT', res.text);
      assert.equal(res.json.error.field, field, res.text);
      assert.match(res.json.error.message, /credentials/, res.text);
      assert.doesNotMatch(res.text, /s3cr3t/, 'the answer does not repeat the secret');
    }
    const list = await api.call('GET', '/jobs?machine=add');
    assert.equal(list.json.jobs.length, 1, 'only the first test’s job exists');
  });
});
