// The `machinist` CLI as users run it: real child processes against a private redis-server.
// Spawns `node --import tsx src/cli/main.ts` so the test does not depend on a build.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, RedisStore } from '../../src/index.js';
import { Registry } from '../../src/runtime/registry.js';
import { resize } from './fixtures/schemaJobs.js';
import { Receiver } from '../webhooks/receiver.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { TSX } from '../support/tsx.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = 'src/cli/main.ts';
const JOBS = 'test/cli/fixtures/cliJobs.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('machinist CLI', () => {
  let redis: TestRedis;
  let prefix: string;
  let store: RedisStore;
  const workers = new Set<ChildProcess>();

  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    const left = [...workers].filter((w) => w.exitCode === null && w.signalCode === null);
    for (const w of left) w.kill('SIGKILL');
    workers.clear();
    await store?.close();
    assert.equal(left.length, 0, 'a test left a worker running');
  });

  const globals = () => ['--redis', redis.url, '--prefix', prefix];

  function cli(...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [...TSX, MAIN, ...globals(), ...args],
        { cwd: ROOT },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  /** Starts `machinist worker` and resolves once it says it is ready. */
  async function startWorker(
    ...args: string[]
  ): Promise<{ child: ChildProcess; exit: Promise<number | null>; output: () => string }> {
    const child = spawn(process.execPath, [...TSX, MAIN, ...globals(), 'worker', '--jobs', JOBS, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    workers.add(child);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await eventually(() => out.includes('worker ready') || child.exitCode !== null, 15_000);
    assert.ok(out.includes('worker ready'), `worker did not start: ${out}`);
    return { child, exit, output: () => out };
  }

  function fresh(): void {
    prefix = uniquePrefix('cli');
    store = new RedisStore({ url: redis.url, prefix });
  }

  it('enqueue --dedupe-key/--dedupe-mode: a second enqueue in the window prints the first id; a bad mode is refused', async () => {
    fresh();
    const worker = await startWorker('--heartbeat-ms', '200', '--lease-ms', '2000');
    const args = [
      'enqueue',
      'echo',
      '{"n":1}',
      '--dedupe-key',
      'k',
      '--dedupe-mode',
      'ttl',
      '--dedupe-ttl-ms',
      '60000',
    ];
    const a = await cli(...args);
    const b = await cli(...args);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.stdout, a.stdout);
    const bad = await cli('enqueue', 'echo', '{}', '--dedupe-key', 'k', '--dedupe-mode', 'nope');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /dedupe\.mode/);
    worker.child.kill('SIGTERM');
    await worker.exit;
  });

  it('runs a job enqueued with the CLI, shows its status, and exits 0 on SIGTERM when idle', async () => {
    fresh();
    const worker = await startWorker('--heartbeat-ms', '200', '--lease-ms', '2000');

    const enq = await cli('enqueue', 'echo', '{"n":1}', '--priority', 'high', '--wait', '10000');
    assert.equal(enq.code, 0, enq.stderr);
    const id = enq.stdout.split('\n')[0]!;
    assert.match(id, /^[0-9A-HJKMNP-TV-Z]{26}$/);

    const status = await cli('status', id, '--json');
    assert.equal(status.code, 0, status.stderr);
    const job = JSON.parse(status.stdout) as {
      status: string;
      output: unknown;
      priority: string;
      attempts: number;
    };
    assert.equal(job.status, 'done');
    assert.deepEqual(job.output, { n: 1 });
    assert.equal(job.priority, 'high');
    assert.equal(job.attempts, 1);

    const human = await cli('status', id);
    assert.match(human.stdout, /^status\s+done$/m);

    const events = await cli('events', id, '--json');
    assert.deepEqual(
      (JSON.parse(events.stdout) as { type: string }[]).map((e) => e.type),
      ['enqueued', 'claimed', 'done'],
    );

    const stats = await cli('stats', '--json');
    assert.equal((JSON.parse(stats.stdout) as Record<string, { done: number }>).default?.done, 1);

    worker.child.kill('SIGTERM');
    assert.equal(await worker.exit, 0, worker.output());
  });

  it('cancel stops the whole subtree: a parent waiting on its children, and the children running', async () => {
    fresh();
    // The last --jobs wins: a parent that fans out two long sleepers.
    const worker = await startWorker('--jobs', 'test/cli/fixtures/fanJobs.ts', '--heartbeat-ms', '200');
    const client = new Client({ store });
    try {
      const parent = (await cli('enqueue', 'sleepyParent')).stdout.trim();
      const children = async () => (await client.list({ parentId: parent, limit: 10 })).jobs;
      await eventually(
        async () => (await children()).filter((c) => c.status === 'working').length === 2,
        15_000,
      );
      const r = await cli('cancel', parent);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), `cancelled ${parent}`);
      await eventually(async () => (await children()).every((c) => c.status === 'cancelled'), 10_000);
    } finally {
      client.close();
      worker.child.kill('SIGTERM');
      await worker.exit;
    }
  });

  it('exits 143 when a job outlives --grace-ms, and that job is queued again at once', async () => {
    fresh();
    // A long lease: the job can only be queued again this soon if shutdown requeued it.
    const worker = await startWorker('--grace-ms', '300', '--heartbeat-ms', '1000', '--lease-ms', '60000');
    const enq = await cli('enqueue', 'sleeper', '{"ms":60000}');
    assert.equal(enq.code, 0, enq.stderr);
    const id = enq.stdout.trim();
    await eventually(async () => (await store.getJob(id))?.status === 'working', 10_000);

    const running = await cli('status', id);
    assert.match(running.stdout, /^status\s+working$/m);

    const signalledAt = Date.now();
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exit, 143, worker.output());
    assert.ok(Date.now() - signalledAt < 10_000, 'shutdown waited for more than the grace period');

    const job = await store.getJob(id);
    assert.equal(job?.status, 'queued');
    assert.equal((await store.counts('default')).active, 0);
    const log = await store.getLog(id);
    assert.ok(
      log.some((e) => e.type === 'requeued'),
      `no requeue in ${JSON.stringify(log)}`,
    );
  });

  it('forces at once on a second signal', async () => {
    fresh();
    const worker = await startWorker('--grace-ms', '60000', '--heartbeat-ms', '1000', '--lease-ms', '60000');
    const id = (await cli('enqueue', 'sleeper', '{"ms":60000}')).stdout.trim();
    await eventually(async () => (await store.getJob(id))?.status === 'working', 10_000);
    worker.child.kill('SIGTERM');
    await eventually(() => worker.output().includes('stopping'), 5_000);
    worker.child.kill('SIGINT');
    assert.equal(await worker.exit, 143, worker.output());
    assert.equal((await store.getJob(id))?.status, 'queued');
  });

  it('delivers webhooks to a private host that --webhook-allow-hosts opens, and names a bad host', async () => {
    fresh();
    const receiver = await new Receiver().start();
    try {
      // The SSRF guard refuses loopback unless the operator opens it.
      const worker = await startWorker('--webhook-allow-hosts', 'hooks.internal, 127.0.0.1');
      const client = new Client({ store });
      const id = await client.enqueue('echo', { n: 2 }, { webhook: { url: receiver.url('/hook') } });
      await eventually(() => receiver.received.some((r) => r.path === '/hook'), 15_000);
      assert.match(receiver.received.find((r) => r.path === '/hook')!.body, new RegExp(id));
      worker.child.kill('SIGTERM');
      assert.equal(await worker.exit, 0, worker.output());
    } finally {
      await receiver.stop();
    }
    const bad = await cli('worker', '--jobs', JOBS, '--webhook-allow-hosts', 'ok.example,not a host');
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--webhook-allow-hosts.*'not a host'/);
  });

  it("checks the input against the job's schema with --jobs, naming the field, and writes nothing", async () => {
    fresh();
    const SCHEMA_JOBS = 'test/cli/fixtures/schemaJobs.ts';
    const none = await cli('enqueue', '--jobs', SCHEMA_JOBS, 'resize');
    assert.equal(none.code, 2, none.stderr);
    assert.match(
      none.stderr.trim(),
      /^machinist: input of 'resize' does not match its schema: input: .+ \[INVALID_INPUT\]$/,
    );
    const bad = await cli('enqueue', '--jobs', SCHEMA_JOBS, 'resize', '{"url":"a.png","sizes":[1,"x"]}');
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /input\.sizes\[1\]: .+\[INVALID_INPUT\]/);
    assert.equal((await store.list({ queue: 'default', limit: 10 })).jobs.length, 0, 'nothing was written');
    const ok = await cli('enqueue', '--jobs', SCHEMA_JOBS, 'resize', '{"url":"a.png"}');
    assert.equal(ok.code, 0, ok.stderr);
    const job = await store.getJob(ok.stdout.trim());
    assert.deepEqual(job?.input, { url: 'a.png', sizes: [640] }, "stored as the schema's output");
    assert.equal(ok.stderr, '');

    // Without --jobs the CLI has only the registry: it cannot check, and says so.
    await store.registerMachines(new Registry([resize]).info());
    const unchecked = await cli('enqueue', 'resize', '{"url":"a.png"}');
    assert.equal(unchecked.code, 0, unchecked.stderr);
    assert.match(unchecked.stderr, /'resize' declares an input schema, which was not checked \(pass --jobs/);
  });

  it('names the problem in one line and exits non-zero', async () => {
    fresh();
    const unknown = await cli('enqueue', 'no-such-machine', '{}');
    assert.equal(unknown.code, 3);
    assert.match(
      unknown.stderr.trim(),
      /^machinist: no job machine named 'no-such-machine' is registered \[UNKNOWN_MACHINE\]$/,
    );

    // The same wording and exit code for an unknown job, whichever command met it.
    for (const cmd of ['status', 'events', 'chart', 'cancel']) {
      const missing = await cli(cmd, '01ARZ3NDEKTSV4RRFFQ69G5FAV');
      assert.equal(missing.code, 3, `${cmd}: ${missing.stderr}`);
      assert.equal(missing.stderr, 'machinist: no job 01ARZ3NDEKTSV4RRFFQ69G5FAV\n', cmd);
    }
    const missingSend = await cli('send', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '{"type":"GO"}');
    assert.equal(missingSend.stderr, 'machinist: no job 01ARZ3NDEKTSV4RRFFQ69G5FAV\n');
    assert.equal(missingSend.code, 3);

    const badJson = await cli('enqueue', 'echo', '{nope');
    assert.equal(badJson.code, 2);
    assert.match(badJson.stderr, /^machinist: input is not valid JSON: .+\n$/);

    const noJobs = await cli('worker', '--jobs', 'test/cli/fixtures/does-not-exist.js');
    assert.equal(noJobs.code, 1);
    assert.match(noJobs.stderr, /--jobs module not found/);

    const noRedis = await new Promise<Run>((resolve) =>
      execFile(
        process.execPath,
        [...TSX, MAIN, '--redis', 'redis://127.0.0.1:1', 'ls'],
        { cwd: ROOT },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
      ),
    );
    assert.equal(noRedis.code, 1);
    assert.match(
      noRedis.stderr.trim(),
      /^machinist: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
    );
  });
});
