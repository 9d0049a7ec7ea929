// The CLI through a `machinist serve --worker` on Redis (--url), against a private redis-server:
// the same commands print the same as on the store itself (--redis), on the same jobs. The
// MemoryStore side (`machinist dev`) is url.test.ts.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT, runCli, type Run } from '../support/cli.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

const ok = (r: Run) => assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);

describe('the CLI on a running `machinist serve` over Redis (--url)', () => {
  let redis: TestRedis;
  let serve: ChildProcess;
  let url: string;
  const prefix = uniquePrefix('cliurl');
  const env = { REDIS_URL: '', MACHINIST_URL: '', MACHINIST_TOKENS: '', MACHINIST_LOG: 'warn' };
  const viaUrl = (...args: string[]) => runCli(['--url', url, ...args], { env });
  const viaRedis = (...args: string[]) =>
    runCli(['--redis', redis.url, '--prefix', prefix, ...args], { env });

  before(async () => {
    redis = await startRedis();
    serve = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        '--redis',
        redis.url,
        '--prefix',
        prefix,
        'serve',
        '--port',
        '0',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
    );
    let out = '';
    serve.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    serve.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    url = (await eventually(() => /listening on (http:\/\/\S+?)\/? /.exec(out)?.[1], 60_000, 50))!;
  });
  after(async () => {
    if (serve.exitCode === null) {
      const exited = new Promise((r) => serve.once('exit', r));
      serve.kill('SIGINT');
      await exited;
    }
    await redis.stop();
  });

  it('reads and writes the jobs the store path sees: enqueue, status, ls, chart, stats, cancel, dlq', async () => {
    // A worker on the same deployment, started the store way.
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
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
    );
    let out = '';
    worker.stdout.on('data', (d: Buffer) => (out += d.toString()));
    worker.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await eventually(() => out.includes('worker ready'), 30_000, 50);
      const enq = await viaUrl('enqueue', 'echo', '{"hello":"world"}', '--wait', '20000');
      ok(enq);
      const id = enq.stdout.split('\n')[0]!.trim();
      assert.match(enq.stdout, /^output\s+\{"hello":"world"\}$/m);

      // The same job, the same lines, either way.
      const [overHttp, overRedis] = await Promise.all([viaUrl('status', id), viaRedis('status', id)]);
      ok(overHttp);
      ok(overRedis);
      const fields = (s: string) =>
        s.split('\n').filter((l) => /^(id|queue|machine|status|attempts|output) /.test(l));
      assert.deepEqual(fields(overHttp.stdout), fields(overRedis.stdout));
      assert.equal(fields(overHttp.stdout).length, 6);

      const ls = await viaUrl('ls', '--json');
      ok(ls);
      assert.deepEqual(
        (JSON.parse(ls.stdout) as { jobs: { id: string }[] }).jobs.map((j) => j.id),
        [id],
      );
      const chart = await viaUrl('chart', id);
      ok(chart);
      assert.match(chart.stdout, /job_working --> job_done : SUCCEED ×1/);
      assert.equal(chart.stdout, (await viaRedis('chart', id)).stdout);

      const [statsHttp, statsRedis] = await Promise.all([
        viaUrl('stats', '--json'),
        viaRedis('stats', '--json'),
      ]);
      assert.deepEqual(JSON.parse(statsHttp.stdout), JSON.parse(statsRedis.stdout));
      assert.equal((JSON.parse(statsHttp.stdout) as Record<string, { done: number }>).default?.done, 1);

      const slow = (await viaUrl('enqueue', 'sleeper', '{"ms":60000}')).stdout.trim();
      await eventually(
        async () => /^status\s+working$/m.test((await viaRedis('status', slow)).stdout),
        30_000,
        200,
      );
      const cancel = await viaUrl('cancel', slow);
      ok(cancel);
      assert.match(
        cancel.stdout.trim(),
        new RegExp(`^(cancelled ${slow}|cancel requested for ${slow} \\(working\\); its worker stops it)$`),
      );
      await eventually(
        async () => /^status\s+cancelled$/m.test((await viaUrl('status', slow)).stdout),
        30_000,
        200,
      );

      const dlq = await viaUrl('dlq', 'list');
      ok(dlq);
      assert.match(dlq.stdout, /^dead letters in 'default': 0$/m);
      assert.match(dlq.stdout, /^broken jobs in 'default': 0$/m);
      const purge = await viaUrl('dlq', 'purge');
      ok(purge);
      assert.equal(purge.stdout.trim(), "purged 0 dead letter(s) from 'default'");

      // A minimal record (deleted as it ends done): --wait makes the job with its watch on it, so
      // the result is printed either way, the job's record gone after.
      for (const via of [viaUrl, viaRedis]) {
        const min = await via('enqueue', 'echo', '{"m":1}', '--record', 'minimal', '--wait', '20000');
        ok(min);
        assert.match(min.stdout, /^status\s+done$/m);
        assert.match(min.stdout, /^output\s+\{"m":1\}$/m);
        assert.notEqual((await viaRedis('status', min.stdout.split('\n')[0]!.trim())).code, 0);
      }
    } finally {
      const exited = new Promise((r) => worker.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
    }
  });
});
