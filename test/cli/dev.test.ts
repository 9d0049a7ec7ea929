// `machinist dev` (npm start) as a new user runs it, with no Redis anywhere: a real child process
// that says it uses the in-memory store, prints the dashboard's URL, serves the dashboard and
// the API there, runs the demo jobs (an approval waits for the event sent over HTTP), stops
// cleanly on SIGINT, and with --data keeps its jobs across a restart without seeding again.
// Needs no redis-server: it runs where Redis is not installed.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TSX } from '../support/tsx.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Dev {
  child: ChildProcess;
  url: string;
  exit: Promise<number | null>;
  output: () => string;
}

async function eventually<T>(fn: () => Promise<T>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('machinist dev', () => {
  const children = new Set<ChildProcess>();
  const dirs: string[] = [];
  afterEach(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    children.clear();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function dev(args: string[] = [], log = 'warn'): Promise<Dev> {
    const child = spawn(process.execPath, [...TSX, 'src/cli/main.ts', 'dev', '--port', '0', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      // No Redis: neither REDIS_URL nor a redis-server on PATH is looked for. The demo at 1/20 of
      // its human pace (machines/demo.ts): a 3 s backoff takes 150 ms.
      env: {
        ...process.env,
        REDIS_URL: undefined,
        MACHINIST_TOKENS: undefined,
        MACHINIST_LOG: log,
        MACHINIST_DEMO_PACE: '0.05',
      },
    });
    children.add(child);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const url = await eventually(async () => {
      const m = /dashboard at (http:\/\/\S+?)\/ /.exec(out);
      if (!m) throw new Error(`no dashboard URL yet:\n${out}`);
      return m[1]!;
    }, 60_000);
    return { child, url, exit, output: () => out };
  }

  const get = async (url: string) => {
    const res = await fetch(url);
    return { status: res.status, text: await res.text() };
  };
  /** The demo's jobs: those the schedule started (resize-image, every 10 s) left out. */
  const jobs = async (d: Dev) =>
    (
      JSON.parse((await get(`${d.url}/jobs?limit=100`)).text) as {
        jobs: { id: string; machine: string; status: string }[];
      }
    ).jobs.filter((j) => j.machine !== 'resize-image');

  it('serves the dashboard and the API from the in-memory store, runs the demo jobs, and stops on SIGINT', async () => {
    const d = await dev([], 'info');
    assert.match(d.output(), /no REDIS_URL: using the embedded in-memory store/);
    const page = await get(`${d.url}/`);
    assert.equal(page.status, 200);
    assert.match(page.text, /<html/);
    const approval = await eventually(async () => {
      const a = (await jobs(d)).find((j) => j.machine === 'approval');
      assert.equal(a?.status, 'waiting', 'the approval job parks for its decision');
      return a;
    }, 30_000);
    assert.deepEqual(
      new Set((await jobs(d)).map((j) => j.machine)),
      new Set(['approval', 'splitMerge', 'countChunk', 'deliver-webhook', 'ingest']),
    );
    const schedules = JSON.parse((await get(`${d.url}/schedules`)).text) as {
      schedules: { id: string; spec: { everyMs: number } }[];
    };
    assert.deepEqual(
      schedules.schedules.map((s) => [s.id, s.spec.everyMs]),
      [['demo-thumbnails', 10_000]],
    );
    const sent = await fetch(`${d.url}/jobs/${approval.id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: { type: 'APPROVE', by: 'ada' } }),
    });
    assert.equal(sent.status < 300, true, await sent.text());
    await eventually(async () => {
      const r = JSON.parse((await get(`${d.url}/jobs/${approval.id}`)).text) as {
        status: string;
        state: string;
      };
      assert.deepEqual([r.status, r.state], ['done', 'published']);
    }, 30_000);
    // The log line of an attempt that failed and will be retried: its duration, then what follows
    // (not "retry scheduled in <ms>", which reads as the retry's delay).
    await eventually(async () => assert.match(d.output(), /\(deliver-webhook\) done in \d+ ms/), 30_000);
    assert.match(d.output(), /\(deliver-webhook\) failed in \d+ ms, retry scheduled"/);
    d.child.kill('SIGINT');
    assert.equal(await d.exit, 0, d.output());
    assert.match(d.output(), /machinist dev: stopped/);
  });

  it('with --data keeps the jobs across a restart and does not seed them again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'machinist-dev-'));
    dirs.push(dir);
    const file = join(dir, 'jobs.json');
    const first = await dev(['--data', file]);
    assert.match(first.output(), /kept in /);
    // Settled: every demo job done but the approval, which waits for its decision.
    const before = await eventually(async () => {
      const all = await jobs(first);
      assert.equal(all.find((j) => j.machine === 'approval')?.status, 'waiting');
      assert.deepEqual(
        all.filter((j) => j.machine !== 'approval' && j.status !== 'done'),
        [],
      );
      return all;
    }, 30_000);
    first.child.kill('SIGINT');
    assert.equal(await first.exit, 0, first.output());

    const second = await dev(['--data', file]);
    const after = await jobs(second);
    assert.deepEqual(
      after.map((j) => j.id).sort(),
      before.map((j) => j.id).sort(),
      'the same jobs, none seeded anew',
    );
    assert.doesNotMatch(second.output(), /#\/job\//, 'no demo jobs enqueued on the restart');
    second.child.kill('SIGINT');
    assert.equal(await second.exit, 0, second.output());
  });
});
