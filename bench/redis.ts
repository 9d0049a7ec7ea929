// A private redis-server for the bench, and the INFO figures it reads from it.

import { Redis } from 'ioredis';
import { spawnRedisServer } from '../examples/privateRedis.js';
import { MACHINIST_ACTIVE_KEY, MACHINIST_QUEUED_KEY, MACHINIST_READY_KEY } from './common.js';

export interface PrivateRedis {
  host: string;
  port: number;
  url: string;
  ctl: Redis;
  stop(): Promise<void>;
}

/** `extraArgs`: more redis-server options (BENCH_AOF's appendonly; the server's --dir is a temp
 * folder removed when it stops, AOF files with it). */
export async function startRedis(extraArgs: string[] = []): Promise<PrivateRedis> {
  const server = await spawnRedisServer({
    extraArgs: ['--loglevel', 'warning', ...extraArgs],
    stderr: 'inherit',
  });
  const { host, port } = server;
  const ctl = new Redis({ host, port, maxRetriesPerRequest: null });
  ctl.on('error', () => {});
  await ctl.ping();
  return {
    host,
    port,
    url: server.url,
    ctl,
    stop: async () => {
      ctl.disconnect();
      // A clean exit when it comes within 3 s, else at once.
      await Promise.race([server.stop(), new Promise((r) => setTimeout(r, 3_000))]);
      await server.stop('SIGKILL');
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

/** Machinist's jobs of the bench queue that are queued (the `queued` zset and, data format 3,
 * the `ready` list) or running: 0 once every job ended, with or without a finished record. */
export async function machinistUnfinished(ctl: Redis): Promise<number> {
  const [q, r, a] = await Promise.all([
    ctl.zcard(MACHINIST_QUEUED_KEY),
    ctl.llen(MACHINIST_READY_KEY),
    ctl.zcard(MACHINIST_ACTIVE_KEY),
  ]);
  return q + r + a;
}
