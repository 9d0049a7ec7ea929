// Probe for bench/analysis.md (workload 8): what a claim + finish costs Redis per job with the
// ready set kept as a sorted set (Machinist's `queued`) or as a list, behind an empty queue or a
// backlog. It runs stand-ins for the claim and commit scripts (same commands per job: ZPOPMIN or
// LPOP, HMGET of 14 fields, HSET of 3, then HSET / HDEL / ZADD done) on job hashes shaped like
// Machinist's, in batches of 100, one call finishing the last batch and claiming the next.
//
//   node --import tsx bench/probes/queueStructure.ts PORT fill z|l BACKLOG   FLUSHALL, then 20,100 + BACKLOG jobs
//   node --import tsx bench/probes/queueStructure.ts PORT run z|l            claim + finish 20,000 of them
//
// Its wall-clock figures are at the mercy of the machine; bench/probes/queueStructure.sh runs it
// under callgrind, whose instruction and simulated cache-miss counts are repeatable.

import { Redis } from 'ioredis';
import { redisCpuSeconds } from '../redis.js';

const [portArg, mode, kind, backlogArg] = process.argv.slice(2);
const N = 20_000;
const BATCH = 100;
const KP = 'mb:{bench}:';
const QUEUED = KP + 'queued';
const DONE = KP + 'done';

const STEP = `
local kind, want, now = ARGV[1], tonumber(ARGV[2]), ARGV[3]
for i = 4, #ARGV do
  local jk = '${KP}job:' .. ARGV[i]
  redis.call('HSET', jk, 'st', 'done', 'o', 'null', 'fa', now)
  redis.call('HDEL', jk, 'tk', 'qs')
  redis.call('ZADD', KEYS[2], now, ARGV[i])
end
local ids
if kind == 'z' then
  local p = redis.call('ZPOPMIN', KEYS[1], want)
  ids = {}
  for i = 1, #p / 2 do ids[i] = p[i * 2 - 1] end
else
  ids = redis.call('LPOP', KEYS[1], want) or {}
end
for i = 1, #ids do
  local jk = '${KP}job:' .. ids[i]
  redis.call('HMGET', jk, 'm', 'v', 'in', 'sn', 'a', 'ma', 'lr', 'par', 'opt', 'ls', 'io', 'pq', 'ib', 'ct')
  redis.call('HSET', jk, 'st', 'working', 'tk', 'w1:' .. i, 'ct', now)
end
return ids`;

const redis = new Redis({ host: '127.0.0.1', port: Number(portArg) });

/** A ULID-length id, increasing with i. */
function jobId(i: number): string {
  return '01M7XVD0' + i.toString(36).toUpperCase().padStart(18, '0');
}

async function fill(total: number): Promise<void> {
  await redis.flushall();
  const band = 35_184_372_088_833; // Machinist's normal band: 2 * 2^44 + sequence
  for (let s = 0; s < total; s += 1000) {
    const p = redis.pipeline();
    for (let i = s; i < Math.min(total, s + 1000); i++) {
      const id = jobId(i);
      const qs = String(band + i);
      p.hset(
        KP + 'job:' + id,
        'm',
        'noop',
        'v',
        '1',
        'in',
        '{}',
        'st',
        'queued',
        'qs',
        qs,
        'ma',
        '4',
        'ca',
        '1795224404572',
      );
      if (kind === 'z') p.zadd(QUEUED, band + i, id);
      else p.rpush(QUEUED, id);
    }
    await p.exec();
  }
}

async function run(): Promise<void> {
  const cpu0 = await redisCpuSeconds(redis);
  const t0 = performance.now();
  let claimed: string[] = [];
  let done = 0;
  while (done < N) {
    const args = [kind!, String(BATCH), String(Date.now()), ...claimed];
    const next = (await redis.eval(STEP, 2, QUEUED, DONE, ...args)) as string[];
    done += claimed.length;
    claimed = next;
  }
  const us = ((await redisCpuSeconds(redis)) - cpu0) * 1e6;
  console.log(
    `${kind === 'z' ? 'zset' : 'list'}: Redis CPU ${(us / done).toFixed(2)} us/job, wall ${(((performance.now() - t0) * 1000) / done).toFixed(2)} us/job`,
  );
}

if (kind !== 'z' && kind !== 'l') throw new Error(`kind must be z (sorted set) or l (list), got ${kind}`);
if (mode === 'fill') await fill(N + BATCH + Number(backlogArg ?? 0));
else if (mode === 'run') await run();
else throw new Error(`mode must be fill or run, got ${mode}`);
redis.disconnect();
