// `machinist worker --metrics-port`: a real worker process serves its metrics over HTTP on a
// port of its own, scraped and parsed here, and stops serving when the worker stops.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, RedisStore } from '../../src/index.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { Scrape } from '../support/prometheus.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('worker --metrics-port', () => {
  let redis: TestRedis;
  let store: RedisStore | undefined;
  let child: ChildProcess | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    const running = child && child.exitCode === null && child.signalCode === null;
    if (running) child!.kill('SIGKILL');
    await store?.close();
    assert.ok(!running, 'the test left its worker running');
  });

  it('serves the job series on its own port while it runs, and stops with the worker', async () => {
    const prefix = uniquePrefix();
    const worker = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        '--redis',
        redis.url,
        '--prefix',
        prefix,
        'worker',
        '--jobs',
        'test/cli/fixtures/cliJobs.ts',
        '--metrics-port',
        '0',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = worker;
    let out = '';
    worker.stdout.on('data', (d: Buffer) => (out += d.toString()));
    worker.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<number | null>((r) => worker.on('exit', (code) => r(code)));
    await eventually(() => out.includes('worker ready') || worker.exitCode !== null, 20_000);
    const url = /metrics: (http:\/\/\S+\/metrics)/.exec(out)?.[1];
    assert.ok(url, `no metrics URL printed: ${out}`);

    store = new RedisStore({ url: redis.url, prefix });
    const client = new Client({ store });
    const ids = await Promise.all([client.enqueue('echo', 1), client.enqueue('echo', 2)]);
    for (const id of ids)
      assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).status, 'done');
    client.close();

    let s: Scrape | undefined;
    await eventually(async () => {
      const res = await fetch(url);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      s = new Scrape(await res.text());
      return s.value('machinist_jobs_total', { queue: 'default', machine: 'echo', status: 'done' }) === 2;
    }, 10_000);
    assert.equal(s!.value('machinist_queue_depth', { queue: 'default', status: 'done' }), 2);
    assert.equal(
      s!.count('machinist_job_duration_seconds', { queue: 'default', machine: 'echo', status: 'done' }),
      2,
    );

    worker.kill('SIGTERM');
    assert.equal(await exit, 0, out);
    await assert.rejects(fetch(url), 'nothing listens on the metrics port after the worker stopped');
  });
});
