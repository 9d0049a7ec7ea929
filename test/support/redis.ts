// Starts a private redis-server on a free loopback port for one test file (examples/privateRedis.ts),
// restarts it empty on the same port, and stops it.
// REDIS_URL overrides (then the tests use that server and flush nothing but their own prefix).

import { spawnRedisServer, type RedisServer } from '../../examples/privateRedis.js';

export interface TestRedis {
  url: string;
  port: number;
  /** True for a server of this test file's own (not REDIS_URL): it may be flushed or restarted. */
  private: boolean;
  /**
   * Kills the server and starts a new one on the same port, with the same arguments and no data
   * (the private server has no persistence): a Redis that restarted without AOF. Clients
   * reconnect to it by themselves.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(extraArgs: string[] = []): Promise<TestRedis> {
  if (process.env.REDIS_URL) {
    const url = process.env.REDIS_URL;
    const refuse = async () => {
      throw new Error('cannot restart a server given by REDIS_URL');
    };
    return {
      url,
      port: Number(new URL(url).port || 6379),
      private: false,
      restart: refuse,
      stop: async () => {},
    };
  }
  let server: RedisServer = await spawnRedisServer({ extraArgs });
  const port = server.port;
  return {
    url: server.url,
    port,
    private: true,
    restart: async () => {
      await server.stop('SIGKILL');
      server = await spawnRedisServer({ extraArgs, port });
    },
    // SIGKILL: a test's server holds nothing worth a clean shutdown.
    stop: () => server.stop('SIGKILL'),
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
