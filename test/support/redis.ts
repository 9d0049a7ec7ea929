// Starts a private redis-server on a free loopback port for one test file (examples/privateRedis.ts),
// and stops it.
// REDIS_URL overrides (then the tests use that server and flush nothing but their own prefix).

import { spawnRedisServer } from '../../examples/privateRedis.js';

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startRedis(extraArgs: string[] = []): Promise<TestRedis> {
  if (process.env.REDIS_URL) {
    const url = process.env.REDIS_URL;
    return { url, port: Number(new URL(url).port || 6379), stop: async () => {} };
  }
  const server = await spawnRedisServer({ extraArgs });
  // SIGKILL: a test's server holds nothing worth a clean shutdown.
  return { url: server.url, port: server.port, stop: () => server.stop('SIGKILL') };
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
