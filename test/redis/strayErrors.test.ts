// Redis only: the worker is a `machinist worker` child process, which cannot share a MemoryStore.
// An error a job's own code raises where nothing awaits it (a throw from a timer, a rejection
// no one handles) fails that job's attempt, and only it: the `machinist worker` process lives
// on, the other jobs in flight finish, and the failed attempt is retried per the job's policy.
// An error left behind by an attempt that has ended is logged and fails nothing. A real worker
// process: without the isolation, Node's default kills it at the first such error.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { killCliWorker, startCliWorker, type CliWorker } from '../support/cliWorker.js';
import { spawn } from 'node:child_process';
import { ROOT, MAIN } from '../support/cli.js';
import { Client, RedisStore } from '../../src/index.js';
import { TSX } from '../support/tsx.js';

const JOBS = 'test/fixtures/strayJobs.ts';

/** Each stray job and the message its attempts must fail with. */
const STRAY: Record<string, string> = {
  timerThrow: 'thrown from a timer',
  unawaitedReject: 'rejected, never awaited',
  strayCompiled: 'thrown from a timer in strayCompiled',
  strayXstate: 'thrown from a timer in strayXstate',
};

describe('stray errors in a job (machinist worker)', () => {
  let redis: TestRedis;
  let store: RedisStore | undefined;
  let worker: CliWorker | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    killCliWorker(worker);
    await store?.close();
  });

  it('fail the attempt of the job that raised them (retried per its policy), while the worker lives on and the other jobs end done', async () => {
    const prefix = uniquePrefix('stray');
    store = new RedisStore({ url: redis.url, prefix });
    const w = (worker = await startCliWorker(redis, prefix, JOBS, '--concurrency', '10'));
    let exited: string | undefined;
    void w.exited.then((how) => (exited = how));
    const client = new Client({ store });
    // Healthy jobs first: in flight when the stray errors are raised.
    const healthy = await client.enqueueMany([0, 1, 2].map((n) => ({ machine: 'steady', input: n })));
    const stray = await client.enqueueMany(Object.keys(STRAY).map((machine) => ({ machine })));
    const late = await client.enqueue('lateThrow');
    const records = await Promise.all(
      [...healthy, ...stray, late].map((id) =>
        client.waitForResult(id, { timeoutMs: 15_000 }).catch((e) => e),
      ),
    );
    assert.equal(exited, undefined, `the worker process is alive; it printed:\n${w.output()}`);
    for (const [i, id] of healthy.entries()) {
      const rec = await client.get(id);
      assert.equal(rec?.status, 'done', `steady ${i}`);
      assert.equal(rec?.output, i * 2);
    }
    for (const [i, [machine, message]] of Object.entries(STRAY).entries()) {
      const rec = await client.get(stray[i]!);
      assert.equal(rec?.status, 'failed', `${machine}: ${JSON.stringify(records[healthy.length + i])}`);
      assert.equal(rec?.attempts, 2, `${machine} was retried once (maxAttempts 2)`);
      assert.equal(rec?.error?.message, message, machine);
      // The worker's log names the job it failed.
      const logged = w
        .logLines()
        .filter((l) => l.jobId === stray[i] && /failing its attempt/.test(String(l.msg)));
      assert.equal(logged.length, 2, `${machine}: one log line per failed attempt`);
    }
    // An error left behind by an attempt that ended is logged (warn), and fails nothing.
    assert.equal((await client.get(late))?.status, 'done');
    await eventually(() =>
      w.logLines().some((l) => l.jobId === late && /after its attempt 1 ended/.test(String(l.msg))),
    );
    client.close();
    // Still serving, and stops as a healthy worker does.
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 'code 0', w.output());
  });
  it('fail only their own job under `machinist serve --worker` too', async () => {
    const prefix = uniquePrefix('stray-serve');
    store = new RedisStore({ url: redis.url, prefix });
    const child = spawn(
      process.execPath,
      [...TSX, MAIN, '--redis', redis.url, '--prefix', prefix].concat([
        'serve',
        '--port',
        '0',
        '--jobs',
        JOBS,
        '--worker',
      ]),
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, MACHINIST_TOKENS: 'stray-token' },
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await eventually(() => /listening on http/.test(out) || child.exitCode !== null, 20_000);
      const client = new Client({ store });
      const ids = await client.enqueueMany([
        { machine: 'steady', input: 5 },
        { machine: 'timerThrow' },
        { machine: 'unawaitedReject' },
      ]);
      await Promise.allSettled(ids.map((id) => client.waitForResult(id, { timeoutMs: 15_000 })));
      assert.equal(child.exitCode, null, `the server process is alive:\n${out}`);
      const [steady, timer, reject] = await Promise.all(ids.map((id) => client.get(id)));
      assert.deepEqual([steady?.status, steady?.output], ['done', 10]);
      assert.deepEqual([timer?.status, timer?.error?.message], ['failed', 'thrown from a timer']);
      assert.deepEqual([reject?.status, reject?.error?.message], ['failed', 'rejected, never awaited']);
      client.close();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
