// The CLI reaches what `npm start` started: `machinist dev` without Redis runs its jobs on the
// embedded store inside its own process, which only its HTTP API can reach. With --url (or
// MACHINIST_URL) every job command goes through that API: a real `dev` process on a MemoryStore,
// then real CLI processes. Needs no redis-server.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { exec, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { eventually } from '../support/redis.js';
import { ROOT, runCli, type Run } from '../support/cli.js';
import { probe } from '../../src/cli/connect.js';
import { TSX } from '../support/tsx.js';

interface Dev {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts `machinist dev` on the in-memory store (no REDIS_URL) with `env` added. */
async function startDev(env: Record<string, string | undefined> = {}): Promise<Dev> {
  const child = spawn(process.execPath, [...TSX, 'src/cli/main.ts', 'dev', '--port', '0', '--no-seed'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      REDIS_URL: undefined,
      MACHINIST_TOKENS: undefined,
      MACHINIST_LOG: 'warn',
      ...env,
    },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const url = await eventually(
    () => {
      const m = /dashboard at (http:\/\/\S+?)\/ /.exec(out);
      if (!m && child.exitCode !== null) throw new Error(`dev exited:\n${out}`);
      return m?.[1];
    },
    60_000,
    50,
  );
  return { child, url: url!, output: () => out };
}

async function stop(dev: Dev | undefined): Promise<void> {
  if (!dev || dev.child.exitCode !== null) return;
  const exited = new Promise((r) => dev.child.once('exit', r));
  dev.child.kill('SIGINT');
  await exited;
}

/** Waits for a job's status, read straight from the API (a CLI process per look would be slow). */
async function untilStatus(dev: Dev, id: string, status: string): Promise<void> {
  await eventually(
    async () =>
      ((await (await fetch(`${dev.url}/jobs/${id}`)).json()) as { status?: string }).status === status,
    30_000,
    100,
  );
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const ok = (r: Run) => assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);

describe('the CLI on a running `machinist dev` (--url)', () => {
  let dev: Dev;
  // No Redis anywhere: a command that fell back to Redis would fail, not pass by accident.
  const env = { REDIS_URL: '', MACHINIST_URL: '' };
  const cli = (...args: string[]) => runCli(['--url', dev.url, ...args], { env });

  before(async () => (dev = await startDev()));
  after(async () => stop(dev));

  it('`dev` prints the CLI line that reaches its jobs, and that line works as printed', async () => {
    // Its own write after the dashboard's line: it may reach the pipe in a later chunk.
    const line = await eventually(() => /the CLI on these jobs: (.+)$/m.exec(dev.output())?.[1], 10_000, 50);
    assert.equal(line, `npx tsx src/cli/main.ts --url ${dev.url} ls`);
    if (line === undefined) return;
    const run = await new Promise<Run>((resolve) =>
      exec(line, { cwd: ROOT, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      ),
    );
    ok(run);
    assert.match(run.stdout, /^no jobs$/m);
  });

  it('enqueue --wait, status, ls, chart, events and stats read the jobs of the dev process', async () => {
    const enq = await cli(
      'enqueue',
      'deliver-webhook',
      '{"url":"https://hooks.example/a","failTimes":1}',
      '--wait',
      '20000',
    );
    ok(enq);
    const id = enq.stdout.split('\n')[0]!.trim();
    assert.match(id, /^[0-9A-Z]{26}$/);
    assert.match(enq.stdout, /^status\s+done$/m);

    const status = await cli('status', id);
    ok(status);
    assert.match(status.stdout, new RegExp(`^id\\s+${id}$`, 'm'));
    assert.match(status.stdout, /^machine\s+deliver-webhook@1$/m);
    assert.match(status.stdout, /^attempts\s+2 of 5$/m);
    assert.match(status.stdout, /retry-scheduled/);

    const ls = await cli('ls');
    ok(ls);
    assert.match(ls.stdout, new RegExp(`^${id}\\s+deliver-webhook\\s+done\\s`, 'm'));

    // The chart and its marks come from the server: one retry, on the FAIL [canRetry] edge only.
    const chart = await cli('chart', id);
    ok(chart);
    assert.match(chart.stdout, /job_working --> job_queued : FAIL \[canRetry\] ×1/);
    assert.match(chart.stdout, /job_working --> job_done : SUCCEED ×1/);
    assert.doesNotMatch(chart.stdout, /RETRY_LATER ×|REQUEUE ×/);

    const events = await cli('events', id, '--json');
    ok(events);
    const types = (JSON.parse(events.stdout) as { type: string }[]).map((e) => e.type);
    assert.deepEqual(types.slice(0, 2), ['enqueued', 'claimed']);
    assert.equal(types.at(-1), 'done');

    const stats = await cli('stats', '--json');
    ok(stats);
    const counts = JSON.parse(stats.stdout) as Record<string, Record<string, number>>;
    assert.ok((counts.default?.done ?? 0) >= 1, stats.stdout);
  });

  it('cancel, dlq list / retry / purge and send act on the dev process', async () => {
    // An approval parks waiting for its decision: cancelled at once.
    const a = await cli('enqueue', 'approval', '{"documentId":"d-1","deadlineMs":3600000}');
    ok(a);
    const approval = a.stdout.trim();
    await untilStatus(dev, approval, 'waiting');
    // Its decision deadline is a pipeline timer: in the snapshot the API leaves out, served as `timers`.
    const waiting = await cli('status', approval);
    ok(waiting);
    assert.match(
      waiting.stdout,
      // Within half a second of parking the countdown still rounds to the full hour.
      /^timers\n {2}after deadline in approval\.awaitingDecision: due \S+ \(in (59m \d+s|1h 0m)\)$/m,
    );
    const cancel = await cli('cancel', approval);
    ok(cancel);
    assert.equal(cancel.stdout.trim(), `cancelled ${approval}`);
    const again = await cli('cancel', approval);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /has already finished \(cancelled\); nothing to cancel/);

    const b = await cli('enqueue', 'approval', '{"documentId":"d-2","deadlineMs":3600000}');
    const second = b.stdout.trim();
    await untilStatus(dev, second, 'waiting');
    ok(await cli('send', second, '{"type":"APPROVE","by":"ada"}'));
    await untilStatus(dev, second, 'done');

    // A declined card fails for good: a dead letter.
    const c = await cli(
      'enqueue',
      'charge-card',
      '{"customer":"c","card":"4000000000000002","cents":5}',
      '--wait',
      '20000',
    );
    assert.equal(c.code, 1, c.stderr);
    const charge = c.stdout.split('\n')[0]!.trim();
    const dlq = await cli('dlq', 'list');
    ok(dlq);
    assert.match(dlq.stdout, /^dead letters in 'default': 1$/m);
    assert.match(dlq.stdout, new RegExp(`^${charge}\\s+charge-card\\s+1\\s`, 'm'));
    assert.match(dlq.stdout, /^broken jobs in 'default': 0$/m);
    const retried = await cli('dlq', 'retry', charge);
    ok(retried);
    assert.equal(retried.stdout.trim(), `requeued ${charge}`);
    await untilStatus(dev, charge, 'failed');
    const purge = await cli('dlq', 'purge');
    ok(purge);
    assert.equal(purge.stdout.trim(), "purged 1 dead letter(s) from 'default'");
  });

  it('says what the server said: no such job (exit 3), unknown machine (exit 3), bad input (exit 2)', async () => {
    const missing = await cli('status', '01JZZZZZZZZZZZZZZZZZZZZZZZ');
    assert.equal(missing.code, 3);
    assert.equal(missing.stderr.trim(), 'machinist: no job 01JZZZZZZZZZZZZZZZZZZZZZZZ');
    const unknown = await cli('enqueue', 'no-such-machine', '{}');
    assert.equal(unknown.code, 3, unknown.stderr);
    assert.match(unknown.stderr, /no-such-machine.*\[UNKNOWN_MACHINE\]/);
    const bad = await cli('enqueue', 'deliver-webhook', '{}', '--max-attempts', '5000');
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /\[INVALID_INPUT\]/);
  });

  it('MACHINIST_URL does what --url does', async () => {
    const r = await runCli(['stats'], { env: { REDIS_URL: '', MACHINIST_URL: dev.url } });
    ok(r);
    assert.match(r.stdout, /^QUEUE\s+QUEUED/m);
  });

  it('nothing listening at --url is one clear line', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await runCli(['--url', url, 'ls'], { env });
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), `machinist: cannot reach Machinist at ${url}: ECONNREFUSED`);
  });

  it('refuses --url with --redis, and --url for a command that runs a store itself', async () => {
    const both = await runCli(['--url', dev.url, '--redis', 'redis://127.0.0.1:1', 'ls'], { env });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give --url or --redis, not both/);
    const worker = await runCli(['--url', dev.url, 'worker', '--jobs', 'machines/demo.ts'], { env });
    assert.equal(worker.code, 2);
    assert.match(worker.stderr, /this command runs on a store itself: give --redis/);
  });
});

describe('the CLI on a `machinist dev` with tokens', () => {
  let dev: Dev;
  before(async () => (dev = await startDev({ MACHINIST_TOKENS: 's3cret-token-1,reader-token:read' })));
  after(async () => stop(dev));
  const env = { REDIS_URL: '', MACHINIST_URL: '', MACHINIST_TOKEN: '' };

  it('`dev` prints the line with a --token placeholder', async () => {
    // The line comes after the dashboard's, which is all startDev waits for.
    await eventually(() => /the CLI on these jobs:/.test(dev.output()));
    assert.match(
      dev.output(),
      /the CLI on these jobs: .* --url http:\S+ --token <a token of MACHINIST_TOKENS> ls/,
    );
  });

  it('a wrong token, no token and a read-only token for a write are clear errors', async () => {
    const wrong = await runCli(['--url', dev.url, '--token', 'nope', 'ls'], { env });
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stderr,
      new RegExp(
        `^machinist: ${dev.url} refused the token \\(--token, MACHINIST_TOKEN\\): .*\\[UNAUTHORIZED\\]$`,
        'm',
      ),
    );
    const none = await runCli(['--url', dev.url, 'ls'], { env });
    assert.equal(none.code, 1);
    assert.equal(
      none.stderr.trim(),
      `machinist: ${dev.url} needs a token: give --token or set MACHINIST_TOKEN [UNAUTHORIZED]`,
    );
    const reader = await runCli(
      ['--url', dev.url, 'enqueue', 'send-email', '{"to":"a@b.c","template":"t"}'],
      {
        env: { ...env, MACHINIST_TOKEN: 'reader-token' },
      },
    );
    assert.equal(reader.code, 1);
    assert.equal(reader.stderr.trim(), `machinist: the token may not write at ${dev.url} [FORBIDDEN]`);
  });

  it('the right token (--token or MACHINIST_TOKEN) works', async () => {
    ok(await runCli(['--url', dev.url, '--token', 's3cret-token-1', 'ls'], { env }));
    const r = await runCli(
      ['--url', dev.url, 'enqueue', 'send-email', '{"to":"a@b.c","template":"t"}', '--wait', '20000'],
      {
        env: { ...env, MACHINIST_TOKEN: 's3cret-token-1' },
      },
    );
    ok(r);
    assert.match(r.stdout, /^status\s+done$/m);
  });
});

describe('the CLI with neither --url nor --redis', () => {
  it('says when the default Redis is not there, and how to reach a running dev or serve', async () => {
    // probe() is what every store command runs first; the default URL itself (6379) is left
    // alone here: another Redis may listen there.
    const url = `redis://127.0.0.1:${await closedPort()}`;
    await assert.rejects(probe(url, false), (err: Error) => {
      assert.match(err.message, /^cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
      assert.match(err.message, /\(the default: no --redis, REDIS_URL, --url or MACHINIST_URL given\)/);
      assert.match(err.message, /reached with --url and the address it prints$/);
      return true;
    });
    await assert.rejects(probe(url, true), (err: Error) => !/the default/.test(err.message));
  });
});
