// A private redis-server on a free loopback port (no persistence), for the demo, the tests
// (test/support/redis.ts) and the bench (bench/redis.ts): one launcher for all three.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface RedisServer {
  host: string;
  port: number;
  url: string;
  process: ChildProcess;
  /** Ends the server (SIGTERM: a clean exit; SIGKILL: at once) and removes its directory. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface DemoRedis {
  url: string;
  /** True when this process started the server (and `stop` ends it). */
  private: boolean;
  stop(): Promise<void>;
}

export async function reachable(url: string, timeoutMs = 1000): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/**
 * Starts redis-server (on `port`, else a free one) and resolves once it answers PING (within 5 s). Throws, having cleaned up,
 * when the binary is missing or the server does not answer.
 */
export async function spawnRedisServer(
  options: { extraArgs?: string[]; stderr?: 'ignore' | 'inherit'; port?: number } = {},
): Promise<RedisServer> {
  const host = '127.0.0.1';
  // A given port: a server started again where clients expect it (the tests' restart).
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'machinist-redis-'));
  const args = ['--port', String(port), '--bind', host, '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = spawn('redis-server', [...args, ...(options.extraArgs ?? [])], {
    stdio: ['ignore', 'ignore', options.stderr ?? 'ignore'],
  });
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  // However this process ends (watchdog, uncaught error), the server must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const url = `redis://${host}:${port}`;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100; i++) {
    const failed = await Promise.race([
      spawnError,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 50)),
    ]);
    if (failed) {
      process.removeListener('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        `could not start redis-server (${failed.message}); install it (apt-get install redis-server) or set REDIS_URL`,
      );
    }
    if (await reachable(url, 200)) return { host, port, url, process: child, stop };
  }
  await stop('SIGKILL');
  throw new Error(`redis-server on port ${port} did not answer within 5 s`);
}

/** For the demo: the Redis at `url` when it answers, else a private server stopped at the end. */
export async function useOrStartRedis(url: string): Promise<DemoRedis> {
  if (await reachable(url)) return { url, private: false, stop: async () => {} };
  const server = await spawnRedisServer();
  return { url: server.url, private: true, stop: () => server.stop() };
}
