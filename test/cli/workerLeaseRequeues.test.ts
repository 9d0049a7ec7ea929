// `machinist worker --max-lease-requeues`: the Supervisor's maxLeaseRequeues from the command
// line. Real worker processes against a private redis-server; the worker that holds the job is
// killed with SIGKILL, so its lease passes and the other worker's reaper decides.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { Client, RedisStore } from '../../src/index.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { runCli, spawnCli } from '../support/cli.js';

const JOBS = 'test/cli/fixtures/cliJobs.ts';

describe('machinist worker --max-lease-requeues', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  /** Starts a worker and resolves once it says it is ready. */
  async function startWorker(globals: string[], ...args: string[]): Promise<ChildProcess> {
    const child = spawnCli([...globals, 'worker', '--jobs', JOBS, ...args]);
    child.stdin!.end();
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(() => out.includes('worker ready') || child.exitCode !== null, 15_000);
    assert.ok(out.includes('worker ready'), `worker did not start: ${out}`);
    return child;
  }

  it('fails a job whose lease passed more often than --max-lease-requeues with LEASE_EXPIRED', async () => {
    const prefix = uniquePrefix('mlr');
    const globals = ['--redis', redis.url, '--prefix', prefix];
    const store = new RedisStore({ url: redis.url, prefix });
    const client = new Client({ store });
    const fast = ['--lease-ms', '1000', '--heartbeat-ms', '200', '--reaper-interval-ms', '100'];
    const workers: ChildProcess[] = [];
    try {
      workers.push(await startWorker(globals, ...fast));
      const id = await client.enqueue('sleeper', { ms: 60_000 });
      await eventually(async () => (await store.getJob(id))?.status === 'working', 10_000);
      workers[0]!.kill('SIGKILL');
      // With 0 lease requeues allowed, the first lease that passes fails the job (default 5 would
      // requeue it and this worker would run it again).
      workers.push(await startWorker(globals, ...fast, '--max-lease-requeues', '0'));
      const job = await client.waitForResult(id, { timeoutMs: 15_000 });
      assert.equal(job.status, 'failed');
      assert.equal(job.error?.code, 'LEASE_EXPIRED');
    } finally {
      for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
      client.close();
      await store.close();
    }
  });

  it('refuses a value that is not a whole number >= 0, naming the option', async () => {
    const bad = await runCli(['--redis', redis.url, 'worker', '--jobs', JOBS, '--max-lease-requeues', '-1']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--max-lease-requeues.*expected a whole number >= 0, got '-1'/);
  });
});
