// The Fastify side of the metrics, on a bare Fastify app: every response counted under its
// route's pattern (never the raw URL), GET /metrics in the Prometheus text format, webhook
// deliveries counted under a bounded set of results.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { MachinistMetrics, metricsPlugin, registerMetrics } from '../../src/index.js';
import { Scrape } from '../support/prometheus.js';

describe('metrics plugin', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => app?.close());

  it('counts requests by route pattern, method and code, and serves them on GET /metrics', async () => {
    app = Fastify();
    const metrics = new MachinistMetrics();
    registerMetrics(app, { metrics });
    app.get('/jobs/:id', async (req, reply) =>
      (req.params as { id: string }).id === 'missing' ? reply.code(404).send({ error: 'no' }) : { ok: true },
    );
    app.post('/jobs', async (_req, reply) => reply.code(202).send({ job_id: 'x' }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

    for (const id of ['01AAA', '01BBB', 'missing']) await fetch(`${base}/jobs/${id}`);
    await fetch(`${base}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await fetch(`${base}/no/such/route`);

    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4; charset=utf-8$/);
    const s = new Scrape(await res.text());
    const requests = (route: string, method: string, code: string) =>
      s.value('machinist_http_requests_total', { route, method, code });
    assert.equal(requests('/jobs/:id', 'GET', '200'), 2);
    assert.equal(requests('/jobs/:id', 'GET', '404'), 1);
    assert.equal(requests('/jobs', 'POST', '202'), 1);
    assert.equal(requests('unmatched', 'GET', '404'), 1);
    assert.equal(
      s.count('machinist_http_request_duration_seconds', { route: '/jobs/:id', method: 'GET' }),
      3,
    );
    // No raw URL (and so no id) is a label value.
    const routes = s.labelValues('machinist_http_requests_total', 'route');
    for (const r of routes) assert.ok(!r.includes('01AAA') && !r.includes('/no/such'), r);
    // The worker's series are in an HTTP process's scrape too (same schema from both).
    for (const name of ['machinist_jobs_total', 'machinist_state_dwell_seconds', 'machinist_queue_depth'])
      s.family(name);
  });

  it('works as a registered plugin whose hook sees routes of other plugins', async () => {
    app = Fastify();
    const metrics = new MachinistMetrics();
    await app.register(metricsPlugin, { metrics });
    await app.register(async (child) => {
      child.get('/healthz', async () => ({ ok: true }));
    });
    assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
    const s = new Scrape((await app.inject({ url: '/metrics' })).body);
    assert.equal(
      s.value('machinist_http_requests_total', { route: '/healthz', method: 'GET', code: '200' }),
      1,
    );
  });

  it('guards /metrics with the given preHandler when it is not open', async () => {
    app = Fastify();
    const metrics = new MachinistMetrics();
    registerMetrics(app, {
      metrics,
      open: false,
      authenticate: async (req, reply) => {
        if (req.headers.authorization !== 'Bearer t') await reply.code(401).send({ error: 'unauthorized' });
      },
    });
    assert.equal((await app.inject({ url: '/metrics' })).statusCode, 401);
    assert.equal(
      (await app.inject({ url: '/metrics', headers: { authorization: 'Bearer t' } })).statusCode,
      200,
    );
    assert.throws(() => registerMetrics(Fastify(), { metrics, open: false }), /authenticate/);
  });

  it('counts webhook deliveries by result, an unknown result as other', async () => {
    const metrics = new MachinistMetrics();
    metrics.countWebhookDelivery('delivered');
    metrics.countWebhookDelivery('delivered');
    metrics.countWebhookDelivery('retrying');
    metrics.countWebhookDelivery('https://evil.example/' as never);
    const s = new Scrape(await metrics.text());
    assert.equal(s.value('machinist_webhook_deliveries_total', { result: 'delivered' }), 2);
    assert.equal(s.value('machinist_webhook_deliveries_total', { result: 'retrying' }), 1);
    assert.equal(s.value('machinist_webhook_deliveries_total', { result: 'other' }), 1);
    assert.equal(s.labelValues('machinist_webhook_deliveries_total', 'result').size, 3);
  });

  it('keeps two instances apart (a registry per object, not the global one)', async () => {
    const a = new MachinistMetrics();
    const b = new MachinistMetrics();
    a.countWebhookDelivery('failed');
    assert.equal(
      new Scrape(await a.text()).value('machinist_webhook_deliveries_total', { result: 'failed' }),
      1,
    );
    assert.equal(
      new Scrape(await b.text()).value('machinist_webhook_deliveries_total', { result: 'failed' }),
      0,
    );
  });
});
