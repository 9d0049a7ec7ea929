// Every status the API answers is declared in its OpenAPI document: a client generated from the
// document (or a gateway that checks replies against it) meets no undeclared status. Each route's
// error paths are driven over real HTTP: auth (401/403), bodies that are not JSON (415) or too
// large (413), bad input (400), missing things (404), conflicts (409), and the success paths.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { defineJob, Supervisor } from '../../src/index.js';
import { FAST } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { READ_TOKEN, TOKEN, startApi, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: () => 1 });
const BODY_LIMIT = 1024;

type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

interface Probe {
  method: string;
  /** The route as the document names it, e.g. `/jobs/{id}`. */
  route: string;
  path: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  token?: string | null;
}

/** The status of one request; a live stream (200, text/event-stream) is closed once it answers. */
async function request(api: Api, p: Probe): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { ...p.headers };
  const token = p.token === undefined ? TOKEN : p.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body = p.raw;
  if (p.body !== undefined) {
    body = JSON.stringify(p.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(api.url + p.path, { method: p.method, headers, body });
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, text: '' };
  }
  return { status: res.status, text: await res.text() };
}

describe('HTTP API statuses and the OpenAPI document', () => {
  let redis: TestRedis;
  let api: Api;
  let supervisor: Supervisor;
  before(async () => {
    redis = await startRedis();
    api = await startApi(redis, { jobs: [echo], bodyLimit: BODY_LIMIT });
    supervisor = new Supervisor({
      store: api.store,
      jobs: [echo],
      logger: pino({ level: 'silent' }),
      ...FAST,
    });
    await supervisor.start();
  });
  after(async () => {
    await supervisor.stop({ graceMs: 0 });
    await api.close();
    await redis.stop();
  });

  it('declares every status each route answers, on its error paths and its success paths', async () => {
    const doc = (await api.call('GET', '/openapi.json')).json as Doc;
    const routes = Object.entries(doc.paths).flatMap(([route, methods]) =>
      Object.keys(methods).map((m) => ({ method: m.toUpperCase(), route })),
    );
    const done = (await api.call('POST', '/jobs?wait=10s', { body: { machine: 'echo' } })).json;
    assert.equal(done.status, 'done');
    const fill = (route: string) => route.replace('{id}', 'no-such-job').replace('{name}', 'no-such-machine');
    const probes: Probe[] = [];
    for (const { method, route } of routes) {
      const path = fill(route);
      probes.push({ method, route, path, token: null }); // 401 unless open
      probes.push({ method, route, path, token: READ_TOKEN }); // 403 on a write route
      probes.push({ method, route, path: path + (path.includes('?') ? '&' : '?') + 'queue=bad%20name' });
      if (method !== 'GET') {
        probes.push({ method, route, path, raw: 'hello', headers: { 'content-type': 'text/plain' } });
        probes.push({ method, route, path, body: { pad: 'x'.repeat(BODY_LIMIT * 2) } });
        probes.push({
          method,
          route,
          path,
          raw: '{"broken',
          headers: { 'content-type': 'application/json' },
        });
      }
    }
    const job = `/jobs/${done.id}`;
    probes.push(
      { method: 'POST', route: '/jobs', path: '/jobs', body: { machine: 'echo' } },
      { method: 'POST', route: '/jobs', path: '/jobs?wait=10s', body: { machine: 'echo' } },
      { method: 'POST', route: '/jobs', path: '/jobs', body: { machine: 'nope' } },
      { method: 'POST', route: '/jobs/batch', path: '/jobs/batch', body: { jobs: [{ machine: 'echo' }] } },
      {
        method: 'POST',
        route: '/jobs/batch',
        path: '/jobs/batch?wait=10s',
        body: { jobs: [{ machine: 'echo' }] },
      },
      { method: 'POST', route: '/jobs/batch', path: '/jobs/batch', body: { jobs: [{ machine: 'nope' }] } },
      { method: 'GET', route: '/jobs', path: '/jobs?limit=0' },
      { method: 'GET', route: '/jobs', path: '/jobs' },
      { method: 'GET', route: '/jobs/{id}', path: job },
      { method: 'GET', route: '/jobs/{id}/events', path: `${job}/events` },
      { method: 'POST', route: '/jobs/{id}/cancel', path: `${job}/cancel` },
      { method: 'POST', route: '/jobs/{id}/events', path: `${job}/events`, body: { event: { type: 'GO' } } },
      { method: 'POST', route: '/jobs/{id}/events', path: `${job}/events`, body: { event: {} } },
      {
        method: 'GET',
        route: '/jobs/{id}/stream',
        path: `${job}/stream`,
        headers: { 'last-event-id': 'not-an-id' },
      },
      {
        method: 'GET',
        route: '/jobs/{id}/stream',
        path: `${job}/stream`,
        headers: { 'last-event-id': '99999999999999-0:job' }, // after the final record: 204
      },
      { method: 'GET', route: '/jobs/{id}/stream', path: `${job}/stream` },
      { method: 'GET', route: '/events', path: '/events?queue=nowhere' },
      { method: 'GET', route: '/events', path: '/events', headers: { 'last-event-id': 'x' } },
      { method: 'GET', route: '/dead-letters', path: '/dead-letters' },
      { method: 'GET', route: '/machines', path: '/machines' },
      { method: 'GET', route: '/machines/{name}', path: '/machines/echo' },
      { method: 'GET', route: '/machines/{name}', path: '/machines/echo?version=99' },
      { method: 'GET', route: '/healthz', path: '/healthz' },
      { method: 'GET', route: '/openapi.json', path: '/openapi.json' },
    );
    const undeclared: string[] = [];
    const seen = new Set<string>();
    for (const p of probes) {
      const res = await request(api, p);
      const declared = doc.paths[p.route]![p.method.toLowerCase()]!.responses;
      seen.add(`${p.method} ${p.route}`);
      if (!(String(res.status) in declared))
        undeclared.push(
          `${p.method} ${p.route} answered ${res.status} (${p.path}): ${res.text.slice(0, 80)}`,
        );
    }
    assert.deepEqual(undeclared, []);
    assert.equal(seen.size, routes.length, 'every documented route was probed');
  });
});
