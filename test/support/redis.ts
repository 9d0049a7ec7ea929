// Starts a private redis-server on a free loopback port for one test file, and stops it.
// REDIS_URL overrides (then the tests use that server and flush nothing but their own prefix).

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Kills the server hard (for fault tests) and restarts it on the same port. */
  process: ChildProcess | undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function startRedis(extraArgs: string[] = []): Promise<TestRedis> {
  if (process.env.REDIS_URL) {
    const url = process.env.REDIS_URL;
    return { url, port: Number(new URL(url).port || 6379), process: undefined, stop: async () => {} };
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'machinist-redis-'));
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...extraArgs,
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  for (let i = 0; i < 100; i++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch {
      probe.disconnect();
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  probe.disconnect();
  return {
    url,
    port,
    process: child,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let counter = 0;
/** A fresh key prefix per test, so tests sharing a server never see each other's keys. */
export function uniquePrefix(name = 't'): string {
  return `${name}${process.pid}x${++counter}`;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = 5000, stepMs = 20): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end)
      throw new Error(
        `condition not met within ${timeoutMs} ms${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    await sleep(stepMs);
  }
}
