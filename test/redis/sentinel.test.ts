// RedisStore through Redis Sentinel: nothing of Machinist's own, ioredis's `sentinels` and
// `name` options in `redis`. A private redis-server and one sentinel monitoring it; the store asks
// the sentinel for the master and runs a job there, and names the master in its errors.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Client, RedisStore, Supervisor, defineJob } from '../../src/index.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { freePort, reachable } from '../../examples/privateRedis.js';

describe('RedisStore through Redis Sentinel', () => {
  let redis: TestRedis;
  let sentinel: ChildProcess;
  let sentinelPort: number;
  let dir: string;
  before(async () => {
    redis = await startRedis();
    sentinelPort = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'machinist-sentinel-'));
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      `port ${sentinelPort}\nbind 127.0.0.1\nsentinel monitor mymaster 127.0.0.1 ${redis.port} 1\n`,
    );
    sentinel = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
    await eventually(() => reachable(`redis://127.0.0.1:${sentinelPort}`, 200), 5000);
  });
  after(async () => {
    sentinel.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await redis.stop();
  });

  it('runs a job on the master the sentinel names', async () => {
    const store = new RedisStore({
      redis: { sentinels: [{ host: '127.0.0.1', port: sentinelPort }], name: 'mymaster' },
      prefix: uniquePrefix('sen'),
    });
    const job = defineJob({ name: 'noop', work: () => 'ok' });
    const worker = new Supervisor({ store, jobs: [job], logger: pino({ level: 'silent' }) });
    try {
      await worker.start();
      const client = new Client({ store, jobs: [job] });
      const done = await client.waitForResult(await client.enqueue('noop', null), { timeoutMs: 10_000 });
      assert.equal(done.output, 'ok');
      client.close();
    } finally {
      await worker.stop();
      await store.close();
    }
  });
});
