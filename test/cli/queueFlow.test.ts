// `machinist queue pause|resume|limits` and `enqueue --concurrency-key` as users run them: real
// child processes against a private redis-server.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { RedisStore } from '../../src/index.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('machinist queue', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('pauses, sets limits, shows them, and enqueues with a concurrency key', async () => {
    const prefix = uniquePrefix('cliq');
    const cli = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          ['--import', 'tsx', 'src/cli/main.ts', '--redis', redis.url, '--prefix', prefix, ...args],
          { cwd: ROOT },
          (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const store = new RedisStore({ url: redis.url, prefix });
    const raw = new Redis(redis.url);
    try {
      const p = await cli('queue', 'pause', 'q');
      assert.equal(p.code, 0, p.stderr);
      assert.equal((await store.queueFlow('q')).paused, true);
      const l = await cli('queue', 'limits', 'q', '--per-key', '2', '--total', '9', '--json');
      assert.equal(l.code, 0, l.stderr);
      const view = JSON.parse(l.stdout) as { paused: boolean; limits: unknown };
      assert.equal(view.paused, true);
      assert.deepEqual(view.limits, { total: 9, perKey: 2 });
      const bad = await cli('queue', 'limits', 'q', '--per-key', '0');
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /per-key/);
      const e = await cli(
        'enqueue',
        'echo',
        '{}',
        '--queue',
        'q',
        '--concurrency-key',
        'tenant-a',
        '--jobs',
        'test/cli/fixtures/cliJobs.ts',
      );
      assert.equal(e.code, 0, e.stderr);
      const id = e.stdout.trim();
      assert.equal(await raw.hget(`${prefix}:{q}:job:${id}`, 'ck'), 'tenant-a');
      const k = await cli('queue', 'pause-key', 'q', 'tenant-a');
      assert.equal(k.code, 0, k.stderr);
      assert.equal((await store.queueFlow('q')).keys.find((x) => x.key === 'tenant-a')?.paused, true);
      const kr = await cli('queue', 'limits', 'q', '--key-rate-limit', '2/1000+1,skip', '--json');
      assert.equal(kr.code, 0, kr.stderr);
      assert.deepEqual((JSON.parse(kr.stdout) as { limits: { keyRateLimit: unknown } }).limits.keyRateLimit, {
        limit: 2,
        perMs: 1000,
        burst: 1,
        mode: 'skip',
      });
      assert.equal((await cli('queue', 'resume-key', 'q', 'tenant-a')).code, 0);
      const fr = await cli('queue', 'limits', 'q', '--fairness', 'roundRobin');
      assert.equal(fr.code, 0, fr.stderr);
      assert.match(fr.stdout, /fairness\s+roundRobin/);
      assert.equal((await store.queueFlow('q')).limits.fairness, 'roundRobin');
      const badFair = await cli('queue', 'limits', 'q', '--fairness', 'random');
      assert.notEqual(badFair.code, 0);
      assert.match(badFair.stderr, /fairness/);
      const mg = await cli(
        'queue',
        'limits',
        'q',
        '--machine',
        'echo=shared:stripe',
        '--machine',
        'x=2',
        '--shared',
        'stripe=3',
        '--json',
      );
      assert.equal(mg.code, 0, mg.stderr);
      assert.deepEqual((JSON.parse(mg.stdout) as { limits: { machineGates: unknown } }).limits.machineGates, {
        echo: 's:stripe',
        x: 'm:x',
      });
      const mr = await cli(
        'queue',
        'limits',
        'q',
        '--machine',
        'x=2',
        '--machine-rate-limit',
        'x=5/1000+1,skip',
        '--machine-rate-limit',
        'echo=3/1000',
      );
      assert.equal(mr.code, 0, mr.stderr);
      assert.match(mr.stdout, /machine "x": rateLimit 5 per 1000 ms, burst 1, mode skip/);
      assert.deepEqual((await store.queueFlow('q')).limits.machineRateLimits, {
        echo: { limit: 3, perMs: 1000, burst: 0 },
        x: { limit: 5, perMs: 1000, burst: 1, mode: 'skip' },
      });
      assert.equal((await store.queueFlow('q')).limits.gates?.['m:x'], 2);
      assert.equal((await cli('queue', 'limits', 'q', '--machine-rate-limit', 'echo=none')).code, 0);
      assert.deepEqual(Object.keys((await store.queueFlow('q')).limits.machineRateLimits ?? {}), ['x']);
      assert.equal((await store.queueFlow('q')).keys.find((x) => x.key === 'tenant-a')?.paused, undefined);
    } finally {
      raw.disconnect();
      await store.close();
    }
  });
});
