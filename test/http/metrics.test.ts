// The HTTP API serves GET /metrics (open by default, like /healthz) with its own request series
// and the queue depths, and a supervisor sharing the server's MachinistMetrics adds its jobs and
// webhook deliveries to the same scrape.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, serverMetrics, Supervisor, type MachinistMetrics } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';
import { Scrape } from '../support/prometheus.js';
import { Receiver } from '../webhooks/receiver.js';

const ok = defineJob({ name: 'ok', work: () => 'fine' });

describe('HTTP: GET /metrics', () => {
  let redis: TestRedis;
  let api: Api;
  let metrics: MachinistMetrics;
  let supervisor: Supervisor;
  let rx: Receiver;
  before(async () => {
    redis = await startRedis();
    rx = await new Receiver().start();
    api = await startApi(redis, { jobs: [ok] });
    // The server's own metrics (createServer makes one per server unless given one or false).
    metrics = serverMetrics(api.app)!;
    supervisor = new Supervisor({
      store: api.store,
      jobs: [ok],
      observers: [metrics],
      webhooks: { retryDelayMs: 100, maxDelayMs: 400, idleCheckMs: 200 },
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

  it('answers without a token, in Prometheus text, with requests, jobs, queue depth and webhook deliveries', async () => {
    const res = await api.call('POST', '/jobs?wait=10s', {
      body: { machine: 'ok', input: {}, webhookUrl: rx.url('/done') },
    });
    assert.equal(res.status, 200, res.text);
    await eventually(() => rx.at('/done').length > 0, 10_000);
    const scrape = await eventually(async () => {
      const m = await api.call('GET', '/metrics', { token: null });
      assert.equal(m.status, 200, m.text);
      assert.match(m.headers.get('content-type') ?? '', /^text\/plain/);
      const s = new Scrape(m.text);
      assert.equal(s.value('machinist_webhook_deliveries_total', { result: 'delivered' }), 1);
      return s;
    }, 10_000);
    assert.equal(
      scrape.value('machinist_jobs_total', { queue: 'default', machine: 'ok', status: 'done' }),
      1,
    );
    assert.equal(
      scrape.value('machinist_http_requests_total', { route: '/jobs', method: 'POST', code: '200' }),
      1,
    );
    assert.equal(scrape.value('machinist_queue_depth', { queue: 'default', status: 'done' }), 1);
  });

  it('is left out with metrics: false', async () => {
    const bare = await startApi(redis, { jobs: [ok], metrics: false });
    try {
      assert.equal(serverMetrics(bare.app), undefined);
      assert.equal((await bare.call('GET', '/metrics')).status, 404);
    } finally {
      await bare.close();
    }
  });

  it('is not in the OpenAPI document (it is not JSON)', async () => {
    const doc = await api.call('GET', '/openapi.json');
    assert.equal(doc.json.paths['/metrics'], undefined);
  });
});
