// A client that leaves a `POST /jobs?wait=` request early takes its wait with it: the server
// stops watching the job for it (the record's watcher mark goes) and, once no wait is left,
// its blocking result read ends; nothing is held until the wait would have timed out.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Redis } from 'ioredis';
import { defineJob } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { startApi, TOKEN, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: ({ input }: { input: unknown }) => input });

describe('POST /jobs?wait when the client leaves', () => {
  let redis: TestRedis;
  let api: Api;
  let raw: Redis;
  before(async () => {
    redis = await startRedis();
    // No worker: the jobs stay queued, so every wait would last its full 100 s.
    api = await startApi(redis, { jobs: [echo] });
    raw = new Redis(redis.url);
  });
  after(async () => {
    raw.disconnect();
    await api.close();
    await redis.stop();
  });

  const blockingReads = async () =>
    ((await raw.call('CLIENT', 'LIST')) as string).split('\n').filter((l) => /\bcmd=(blmpop|blpop)\b/.test(l))
      .length;

  it('releases the waits of 20 clients that disconnected', async () => {
    const body = JSON.stringify({ machine: 'echo', input: 1 });
    const requests = Array.from({ length: 20 }, () => {
      const req = request(`${api.url}/jobs?wait=100s`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      });
      req.on('error', () => undefined);
      req.end(body);
      return req;
    });
    const jobKeys = async () =>
      (await raw.keys(`${api.prefix}:*job:*`)).filter((k) => /:job:[0-9A-Z]{26}$/.test(k));
    // Every job is made and watched for its waiting request.
    await eventually(async () => {
      const keys = await jobKeys();
      if (keys.length < 20) return false;
      const marks = await Promise.all(keys.map((k) => raw.hget(k, 'wt')));
      return marks.every((m) => m !== null);
    }, 15_000);
    // The reader blocks in rounds (a timeout each): looked at once it may be between two blocks.
    await eventually(async () => (await blockingReads()) >= 1, 5_000).catch(() =>
      assert.fail('a blocking result read serves the waits'),
    );

    for (const req of requests) req.destroy();

    await eventually(async () => {
      const marks = await Promise.all((await jobKeys()).map((k) => raw.hget(k, 'wt')));
      return marks.every((m) => m === null);
    }, 15_000);
    await eventually(async () => (await blockingReads()) === 0, 15_000);
    // The server still answers.
    assert.equal((await api.call('GET', '/healthz')).status, 200);
  });
});
