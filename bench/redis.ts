// A private redis-server for the bench, and the INFO figures it reads from it.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

export interface PrivateRedis {
  host: string;
  port: number;
  url: string;
  proc: ChildProcess;
  ctl: Redis;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function startRedis(): Promise<PrivateRedis> {
  const host = '127.0.0.1';
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', host, '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const kill = () => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  };
  process.once('exit', kill);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis({
      host,
      port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch (err) {
      probe.disconnect();
      if (Date.now() > deadline)
        throw new Error(`redis-server did not start on port ${port}`, { cause: err });
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const ctl = new Redis({ host, port, maxRetriesPerRequest: null });
  ctl.on('error', () => {});
  await ctl.ping();
  return {
    host,
    port,
    url: `redis://${host}:${port}`,
    proc,
    ctl,
    stop: async () => {
      ctl.disconnect();
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))]);
      kill();
    },
  };
}

export function parseInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

export interface CommandStat {
  calls: number;
  usec: number;
}

export async function commandStats(ctl: Redis): Promise<Map<string, CommandStat>> {
  const info = parseInfo(await ctl.info('commandstats'));
  const out = new Map<string, CommandStat>();
  for (const [k, v] of Object.entries(info)) {
    if (!k.startsWith('cmdstat_')) continue;
    const f = Object.fromEntries(v.split(',').map((kv) => kv.split('='))) as Record<string, string>;
    out.set(k.slice('cmdstat_'.length), { calls: Number(f.calls ?? 0), usec: Number(f.usec ?? 0) });
  }
  return out;
}

/** Redis CPU time (user + sys), seconds. */
export async function redisCpuSeconds(ctl: Redis): Promise<number> {
  const info = parseInfo(await ctl.info('cpu'));
  return Number(info.used_cpu_user ?? 0) + Number(info.used_cpu_sys ?? 0);
}

export async function usedMemory(ctl: Redis): Promise<number> {
  return Number(parseInfo(await ctl.info('memory')).used_memory ?? 0);
}
