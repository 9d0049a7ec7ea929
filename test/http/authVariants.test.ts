// Auth cannot be stepped around: every method and spelling of a path reaches data only with a
// token, the dashboard's JSON routes and live streams included; a read-only token writes
// nothing by any method; the scheme's case and surrounding whitespace do not matter, the
// token's own characters do.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { READ_TOKEN, startApi, TOKEN, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: ({ input }: { input: unknown }) => input });

/** One request as written, path untouched (fetch would normalise `//` and `..`). */
function rawStatus(
  api: Api,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const { port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP API auth variants', () => {
  let redis: TestRedis;
  let api: Api;
  let id: string;
  before(async () => {
    redis = await startRedis();
    api = await startApi(redis, { jobs: [echo], dashboard: { actions: true } });
    id = (await api.call('POST', '/jobs', { body: { machine: 'echo', input: 1, delayMs: 3_600_000 } })).json
      .job_id;
  });
  after(async () => {
    await api.close();
    await redis.stop();
  });

  it('answers 401 without a token for every method and spelling of a data route', async () => {
    const paths = [
      '/jobs',
      `/jobs/${id}`,
      '/jobs/',
      '//jobs',
      '/%6Aobs',
      '/JOBS',
      '/healthz/../jobs',
      '/metrics;/../jobs',
      '/dashboard/api/config',
      '/dashboard/api/overview',
      `/dashboard/api/jobs/${id}/view`,
      `/dashboard/api/jobs/${id}/children`,
      '/dashboard/api/charts/echo/1.svg',
      '/dashboard/api/machines/echo/1/heat',
      '/dashboard/api/',
      '/events',
      `/jobs/${id}/stream`,
      '/dead-letters',
      '/machines',
      '/openapi.json',
    ];
    for (const path of paths)
      for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST', 'DELETE'])
        assert.equal(await rawStatus(api, method, path), 401, `${method} ${path}`);
  });

  it('lets a read-only token write nothing, by any method', async () => {
    for (const [method, path] of [
      ['POST', '/jobs'],
      ['POST', `/jobs/${id}/cancel`],
      ['POST', `/jobs/${id}/events`],
      ['POST', `/dead-letters/${id}/retry`],
      ['DELETE', `/dead-letters/${id}`],
      ['PUT', '/jobs'],
      ['PATCH', `/jobs/${id}`],
      ['DELETE', `/jobs/${id}`],
    ] as const) {
      const status = await rawStatus(api, method, path, { authorization: `Bearer ${READ_TOKEN}` });
      assert.equal(status, 403, `${method} ${path}`);
    }
    const job = await api.call('GET', `/jobs/${id}`);
    assert.equal(job.json.status, 'queued', 'the job was not touched');
  });

  it('takes the scheme in any case with whitespace around the token, and only the exact token', async () => {
    for (const header of [`bearer ${TOKEN}`, `BEARER ${TOKEN}`, `Bearer   ${TOKEN}  `, `Bearer ${TOKEN}\t`])
      assert.equal(
        await rawStatus(api, 'GET', '/jobs', { authorization: header }),
        200,
        JSON.stringify(header),
      );
    for (const header of [
      `Bearer ${TOKEN.toUpperCase()}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN} ${TOKEN}`,
      `Basic ${TOKEN}`,
      TOKEN,
      'Bearer',
      'Bearer ',
    ])
      assert.equal(
        await rawStatus(api, 'GET', '/jobs', { authorization: header }),
        401,
        JSON.stringify(header),
      );
  });

  it('leaves open only the health check, metrics, and the dashboard page and files', async () => {
    assert.equal(await rawStatus(api, 'GET', '/healthz'), 200);
    assert.equal(await rawStatus(api, 'GET', '/metrics'), 200);
    assert.equal(await rawStatus(api, 'GET', '/'), 200);
    assert.equal(await rawStatus(api, 'GET', '/dashboard'), 200);
    // Open routes do not open what a path trick would make of them.
    assert.equal(await rawStatus(api, 'GET', '/dashboard/assets/..%2Fapi%2Fconfig'), 404);
  });
});
