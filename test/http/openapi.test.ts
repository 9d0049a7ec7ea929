// GET /openapi.json: the document @fastify/swagger generates from the routes' own schemas, so it
// lists every route the server has, with the bodies it validates.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: () => 1 });

/** The API's routes, as issue 14 lists them (with the OpenAPI document itself). */
const ROUTES = [
  'post /jobs',
  'post /jobs/batch',
  'get /jobs',
  'get /jobs/search',
  'get /jobs/{id}',
  'get /jobs/{id}/events',
  'post /jobs/{id}/cancel',
  'post /jobs/{id}/events',
  'get /jobs/{id}/stream',
  'get /jobs/{id}/chart',
  'get /events',
  'get /dead-letters',
  'delete /dead-letters',
  'get /broken-jobs',
  'post /dead-letters/{id}/retry',
  'delete /dead-letters/{id}',
  'get /machines',
  'get /machines/{name}',
  'get /machines/{name}/chart',
  'get /queues',
  'get /workers',
  'put /queues/{queue}/partitions',
  'post /triggers/{name}',
  'get /schedules',
  'get /schedules/{id}',
  'put /schedules/{id}',
  'delete /schedules/{id}',
  'post /schedules/{id}/pause',
  'post /schedules/{id}/resume',
  'post /schedules/{id}/trigger',
  'post /schedules/{id}/backfill',
  'post /queues/{queue}/pause',
  'post /queues/{queue}/resume',
  'get /queues/{queue}/limits',
  'get /queues/{queue}/series',
  'put /queues/{queue}/limits',
  'post /queues/{queue}/keys/{key}/pause',
  'post /queues/{queue}/keys/{key}/resume',
  'get /healthz',
  'get /openapi.json',
];

describe('HTTP API OpenAPI document', () => {
  let redis: TestRedis;
  let api: Api;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => api.close());

  it('is valid JSON listing every route, with the schemas the routes validate', async () => {
    api = await startApi(redis, { jobs: [echo] });
    const res = await api.call('GET', '/openapi.json');
    assert.equal(res.status, 200);
    const doc = JSON.parse(res.text) as {
      openapi: string;
      paths: Record<string, Record<string, any>>;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
    };
    assert.match(doc.openapi, /^3\./);
    const listed = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m} ${path}`),
    );
    assert.deepEqual(new Set(listed), new Set(ROUTES));
    const submit = doc.paths['/jobs']!.post;
    const body = submit.requestBody.content['application/json'].schema;
    assert.deepEqual(body.required, ['machine']);
    assert.ok(body.properties.priority.enum.includes('critical'));
    assert.ok(submit.responses['202'] && submit.responses['200'] && submit.responses['413']);
    assert.ok(submit.parameters.some((p: { name: string }) => p.name === 'wait'));
    assert.ok(doc.components.schemas.Job && doc.components.schemas.Error);
    assert.deepEqual(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer' });
    assert.deepEqual(doc.paths['/jobs/{id}']!.get.security, [{ bearer: [] }]);
  });
});
