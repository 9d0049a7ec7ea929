// For the demo: use the Redis at a URL when it answers, else start a private redis-server on a
// free loopback port (no persistence) and stop it afterwards.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

async function startServer(): Promise<DemoRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'machinist-demo-redis-'));
  const args = [
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
  ];
  const child: ChildProcess = spawn('redis-server', args, { stdio: 'ignore' });
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  // However this process ends (watchdog, uncaught error), the server must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
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
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        `could not start redis-server (${failed.message}); install it (apt-get install redis-server) or set REDIS_URL`,
      );
    }
    if (await reachable(url, 200)) return { url, private: true, stop };
  }
  await stop();
  throw new Error(`redis-server on port ${port} did not answer within 5 s`);
}

export async function useOrStartRedis(url: string): Promise<DemoRedis> {
  if (await reachable(url)) return { url, private: false, stop: async () => {} };
  return startServer();
}
