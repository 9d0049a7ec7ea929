// `machinist serve` as users run it: a real child process that prints the URL it listens on,
// answers there (with --worker running the jobs itself), and stops cleanly on SIGTERM.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const JOBS = 'test/cli/fixtures/cliJobs.ts';
const TOKEN = 'serve-test-token';

interface Served {
  child: ChildProcess;
  url: string;
  exit: Promise<number | null>;
  output: () => string;
}

describe('machinist serve', () => {
  let redis: TestRedis;
  const children = new Set<ChildProcess>();
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(() => {
    const left = [...children].filter((c) => c.exitCode === null && c.signalCode === null);
    for (const c of left) c.kill('SIGKILL');
    children.clear();
    assert.equal(left.length, 0, 'a test left a server running');
  });

  function run(args: string[], env: Record<string, string | undefined>) {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        '--redis',
        redis.url,
        '--prefix',
        uniquePrefix('serve'),
        ...args,
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, MACHINIST_TOKENS: undefined, ...env },
      },
    );
    children.add(child);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    return { child, exit, output: () => out };
  }

  async function serve(args: string[], env: Record<string, string | undefined> = {}): Promise<Served> {
    const r = run(['serve', ...args], env);
    await eventually(
      () => /listening on (http:\/\/\S+)/.test(r.output()) || r.child.exitCode !== null,
      20_000,
    );
    const m = /listening on (http:\/\/\S+)/.exec(r.output());
    assert.ok(m, `serve did not start: ${r.output()}`);
    return { ...r, url: m[1]! };
  }

  it('serves --triggers: a signed POST /triggers/<name> runs its machine once per delivery', async () => {
    const s = await serve(
      ['--port', '0', '--jobs', JOBS, '--worker', '--triggers', 'test/http/fixtures/triggers.ts'],
      {
        MACHINIST_TOKENS: TOKEN,
      },
    );
    const body = JSON.stringify({ hello: 'trigger' });
    const headers = {
      'content-type': 'application/json',
      'x-delivery': 'd-1',
      'x-hub-signature-256': 'sha256=' + createHmac('sha256', 'serve-test-secret').update(body).digest('hex'),
    };
    const a = await fetch(`${s.url}/triggers/hook`, { method: 'POST', headers, body });
    const b = await fetch(`${s.url}/triggers/hook`, { method: 'POST', headers, body });
    assert.equal(a.status, 202);
    const id = ((await a.json()) as { job_id: string }).job_id;
    assert.equal(((await b.json()) as { job_id: string }).job_id, id);
    const rec = (await eventually(async () => {
      const r = await fetch(`${s.url}/jobs/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const j = (await r.json()) as { status: string; output: unknown };
      return j.status === 'done' && j;
    }, 15_000)) as { output: unknown };
    assert.deepEqual(rec.output, { hello: 'trigger' });
    s.child.kill('SIGTERM');
    assert.equal(await s.exit, 0);
  });

  it('prints its URL, runs jobs with --worker, answers ?wait, and exits 0 on SIGTERM', async () => {
    const s = await serve(['--port', '0', '--jobs', JOBS, '--worker'], { MACHINIST_TOKENS: TOKEN });
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const res = await fetch(`${s.url}/jobs?wait=15s`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ machine: 'echo', input: { hello: 'http' } }),
    });
    assert.equal(res.status, 200);
    const job = (await res.json()) as { status: string; output: unknown };
    assert.equal(job.status, 'done');
    assert.deepEqual(job.output, { hello: 'http' });
    assert.equal((await fetch(`${s.url}/jobs`)).status, 401, 'tokens from MACHINIST_TOKENS apply');
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
    s.child.kill('SIGTERM');
    assert.equal(await s.exit, 0, s.output());
    assert.match(s.output(), /stopped/);
  });

  it('takes PORT and HOST from the environment, and without tokens serves on loopback only', async () => {
    const s = await serve(['--jobs', JOBS], { PORT: '0', HOST: '127.0.0.1' });
    assert.match(s.output(), /NO AUTH/);
    assert.equal((await fetch(`${s.url}/machines`)).status, 200);
    s.child.kill('SIGINT');
    assert.equal(await s.exit, 0, s.output());

    const open = run(['serve', '--port', '0', '--host', '0.0.0.0'], {});
    assert.equal(await open.exit, 1);
    assert.match(open.output(), /MACHINIST_TOKENS/);
  });

  it('applies --max-connections and --request-timeout-ms (and takes --expose-error-stacks)', async () => {
    const s = await serve(
      ['--port', '0', '--max-connections', '2', '--request-timeout-ms', '500', '--expose-error-stacks'],
      { MACHINIST_TOKENS: `${TOKEN},read-only-token:read` },
    );
    const { port } = new URL(s.url);
    const sockets = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const socket = connect(Number(port), '127.0.0.1');
        const state = { socket, closed: false, received: '' };
        socket.setEncoding('utf8');
        socket.on('data', (d: string) => (state.received += d));
        socket.on('close', () => (state.closed = true));
        socket.on('error', () => (state.closed = true));
        await new Promise((r) => socket.once('connect', r).once('close', r));
        return state;
      }),
    );
    try {
      // Two past the cap are closed at once; the two within it, sending a body that never ends,
      // are closed by the request timeout with a 408.
      for (const c of sockets.filter((x) => !x.closed))
        c.socket.write(
          `POST /jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
        );
      await eventually(() => sockets.every((c) => c.closed), 15_000, 50);
      assert.equal(sockets.filter((c) => c.received.startsWith('HTTP/1.1 408')).length, 2);
    } finally {
      for (const c of sockets) c.socket.destroy();
    }
    const doc = await fetch(`${s.url}/openapi.json`, {
      headers: { authorization: 'Bearer read-only-token' },
    });
    assert.equal(doc.status, 200, 'a read-only token is let in');
    s.child.kill('SIGTERM');
    assert.equal(await s.exit, 0, s.output());
  });
});
