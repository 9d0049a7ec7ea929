// What the CLI prints beyond a command's answer: one-line errors with documented exit codes
// (commander's parsing errors included), --version, enqueue --wait's live progress line on a
// terminal (and nothing extra when piped), and the worker's log: readable lines on a terminal,
// JSON when piped, one line per job start and end, and a warning while Redis is down (a real
// redis-server, killed and started again on the same port).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { spawnRedisServer, type RedisServer } from '../../examples/privateRedis.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { MAIN, ROOT, runCli, spawnCli } from '../support/cli.js';

const JOBS = 'test/cli/fixtures/cliJobs.ts';
const ESC = '\u001b';

describe('machinist output', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('prints --version and exits 0', async () => {
    const r = await runCli(['--version']);
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string };
    assert.deepEqual(r, { code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it("reports option-parsing errors as one line 'machinist: <problem>' with exit code 2", async () => {
    const cases: [string[], RegExp][] = [
      [['status'], /^machinist: missing required argument 'id'\n$/],
      [['enqueue', 'echo', '--bogus'], /^machinist: unknown option '--bogus'\n$/],
      [
        ['ls', '--limit', 'ten'],
        /^machinist: option '-n, --limit <n>' argument 'ten' is invalid\. expected a whole number >= 1, got 'ten'\.\n$/,
      ],
      [['no-such-command'], /^machinist: unknown command 'no-such-command'\n$/],
      [['dlq', 'list', '--nope'], /^machinist: unknown option '--nope'\n$/],
    ];
    for (const [args, expected] of cases) {
      const r = await runCli(['--redis', redis.url, ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, expected);
      assert.equal(r.stdout, '');
    }
  });

  it('shows a live progress line under enqueue --wait on a terminal, and nothing extra when piped', async () => {
    const prefix = uniquePrefix('out');
    const g = ['--redis', redis.url, '--prefix', prefix];
    const worker = spawnCli([...g, 'worker', '--jobs', JOBS]);
    worker.stdin!.end();
    let out = '';
    worker.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(() => out.includes('worker ready'), 20_000);
    try {
      const input = '{"steps":6,"ms":400}';
      const piped = await runCli([...g, 'enqueue', 'stepper', input, '--wait', '60000']);
      assert.equal(piped.code, 0, piped.stderr);
      assert.equal(piped.stderr, '', 'nothing on stderr when piped');
      assert.ok(!piped.stdout.includes(ESC), 'no terminal codes when piped');

      // `script` runs the command on a pseudo-terminal (util-linux).
      const cmd = [
        process.execPath,
        '--import',
        'tsx',
        MAIN,
        ...g,
        'enqueue',
        'stepper',
        `'${input}'`,
        '--wait',
        '60000',
      ];
      const tty = await new Promise<{ code: number; out: string }>((resolve) =>
        execFile('script', ['-qec', cmd.join(' '), '/dev/null'], { cwd: ROOT }, (err, stdout) =>
          resolve({ code: err ? Number(err.code) : 0, out: stdout }),
        ),
      );
      assert.equal(tty.code, 0, tty.out);
      assert.match(
        tty.out.replaceAll(ESC, '<ESC>'),
        /\r<ESC>\[2Kworking working attempt 1\/\d+ progress \{"step":\d,"of":6\}/,
      );
      assert.match(tty.out, /^status\s+done\r?$/m);
    } finally {
      const exited = new Promise((r) => worker.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
    }
  });

  it('logs job starts and ends, warns within seconds while Redis is down and says when it is back', async () => {
    const server: RedisServer = await spawnRedisServer();
    let restarted: RedisServer | undefined;
    const prefix = uniquePrefix('log');
    const g = ['--redis', server.url, '--prefix', prefix];
    const worker = spawnCli([
      ...g,
      'worker',
      '--jobs',
      JOBS,
      '--log-format',
      'pretty',
      '--heartbeat-ms',
      '200',
      '--lease-ms',
      '2000',
    ]);
    worker.stdin!.end();
    let out = '';
    worker.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await eventually(() => out.includes('worker ready'), 20_000);
      const enq = await runCli([...g, 'enqueue', 'echo', '{"n":1}', '--wait', '20000']);
      assert.equal(enq.code, 0, enq.stderr);
      const id = enq.stdout.split('\n')[0]!;
      const time = String.raw`\d\d:\d\d:\d\d\.\d{3}`;
      await eventually(() => out.includes(`job ${id} (echo) done in`), 10_000);
      assert.match(out, new RegExp(`^${time} INFO  job ${id} \\(echo\\) started$`, 'm'));
      assert.match(out, new RegExp(`^${time} INFO  job ${id} \\(echo\\) done in \\d+ ms$`, 'm'));
      assert.doesNotMatch(out, /^\{"level"/m, 'no JSON lines on the readable log');

      await server.stop('SIGKILL');
      const address = `127.0.0.1:${server.port}`;
      await eventually(() => out.includes(`WARN  Redis at ${address} is unreachable`), 15_000, 100);
      restarted = await spawnRedisServer({ port: server.port });
      await eventually(
        () => new RegExp(`INFO  Redis at ${address} is reachable again after \\d+ ms`).test(out),
        20_000,
        100,
      );
    } finally {
      const exited = new Promise<number | null>((r) => worker.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
      await restarted?.stop('SIGKILL');
      await server.stop('SIGKILL');
    }
  });

  it('logs JSON lines when piped', async () => {
    const prefix = uniquePrefix('json');
    const worker = spawnCli(['--redis', redis.url, '--prefix', prefix, 'worker', '--jobs', JOBS]);
    worker.stdin!.end();
    let out = '';
    worker.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(() => out.includes('worker ready'), 20_000);
    const id = (
      await runCli(['--redis', redis.url, '--prefix', prefix, 'enqueue', 'echo', '1', '--wait', '20000'])
    ).stdout.split('\n')[0]!;
    await eventually(() => out.includes(`(echo) done in`), 10_000);
    const exited = new Promise((r) => worker.once('exit', r));
    worker.kill('SIGTERM');
    await exited;
    const records = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; level: number; jobId?: string; outcome?: string });
    const ended = records.find((r) => r.jobId === id && r.outcome);
    assert.deepEqual([ended?.level, ended?.outcome], [30, 'done']);
    assert.ok(records.some((r) => r.jobId === id && r.msg === `job ${id} (echo) started`));
  });
});
