// A test fixture worker (test/fixtures/*.ts) in a process of its own, and the lines it prints:
// READY once its supervisor runs, STARTED <id> as each job starts (worker.ts), and whatever
// else a test waits for (INDEXING in ingestWorker.ts). A real process, so a test can SIGKILL it.

import { after, afterEach, before } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Harness } from './harness.js';
import { startRedis, type TestRedis } from './redis.js';
import { TSX } from './tsx.js';

export interface Fixture {
  readonly child: ChildProcess;
  /** Ids the fixture printed as `STARTED <id>`. */
  readonly started: Set<string>;
  /** Resolves at the fixture's READY line; rejects if it exits first. */
  readonly ready: Promise<void>;
  /** Resolves at the first line that is `line`; rejects if the fixture exits first. */
  printed(line: string): Promise<void>;
  /** SIGKILLs it; resolves once it has exited. */
  sigkill(): Promise<void>;
}

/** The environment every fixture reads: its Redis, its key prefix, and a silent log. */
export function fixtureEnv(redis: TestRedis, prefix: string): Record<string, string> {
  return { REDIS_URL: redis.url, PREFIX: prefix, MACHINIST_LOG: 'silent' };
}

/** Starts test/fixtures/<file> under tsx with `env` over this process's environment. */
export function spawnFixture(file: string, env: Record<string, string>): Fixture {
  const path = fileURLToPath(new URL(`../fixtures/${file}`, import.meta.url));
  const child = spawn(process.execPath, [...TSX, path], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = new Set<string>();
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  let buf = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.startsWith('STARTED ')) started.add(line.slice(8));
      seen.add(line);
      waiting.get(line)?.();
    }
  });
  const printed = (line: string): Promise<void> => {
    const p = new Promise<void>((resolve, reject) => {
      if (seen.has(line)) return resolve();
      waiting.set(line, resolve);
      child.once('exit', (code) =>
        reject(new Error(`fixture ${file} exited (${code}) before printing ${line}`)),
      );
    });
    // A test that never waits (it killed the fixture first) leaves no unhandled rejection.
    p.catch(() => {});
    return p;
  };
  const sigkill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await exited;
  };
  return { child, started, ready: printed('READY'), printed, sigkill };
}

/**
 * The world of a file of crash tests, set up by its describe: a private redis-server for the
 * file, and per case a Harness and the fixture process it spawned, both ended after the case.
 */
export function fixtureSuite(): {
  /** A fresh Harness and `file`'s fixture on its prefix, once the fixture is READY. */
  spawn(file: string): Promise<{ h: Harness; w: Fixture }>;
} {
  let redis: TestRedis | undefined;
  let h: Harness | undefined;
  let child: ChildProcess | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis?.stop());
  afterEach(async () => {
    killFixture(child);
    child = undefined;
    await h?.close();
    h = undefined;
  });
  return {
    async spawn(file) {
      h = new Harness(redis!);
      const w = spawnFixture(file, fixtureEnv(redis!, h.prefix));
      child = w.child;
      await w.ready;
      return { h, w };
    },
  };
}

/** SIGKILLs a fixture that is still running (a test's cleanup; a no-op once it has exited). */
export function killFixture(child: ChildProcess | undefined): void {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
