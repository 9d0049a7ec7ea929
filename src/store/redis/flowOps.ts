// The flow gate on Redis (lua/flow-3.lua writes it; lua/commit-12.lua's claim obeys it; the
// layout and its invariants are in lua/include/lcFlow.lua).

import { fromScriptError } from '../../errors.js';
import type { GateUse, KeyStrategy, KeyUse, QueueFlow, QueueFlowChange, RateLimit } from '../types.js';
import { nextStartAt } from '../roles/FlowControl.js';
import type { RedisContext } from './RedisContext.js';

const limitArg = (v: number | null | undefined): string =>
  v === undefined ? '' : v === null ? '-' : String(v);

/** A throttle as flow-3.lua takes it: limit, window, burst ('-' clears, '' keeps), mode. */
const rateArgs = (r: RateLimit | null | undefined): (string | number)[] =>
  r === undefined
    ? ['', '', '', '']
    : r === null
      ? ['-', '', '', '']
      : [r.limit, r.perMs, r.burst ?? 0, r.mode === 'skip' ? 'skip' : ''];

/** A map as flow-3.lua takes it: its size, then name and value pairs ('-' clears). */
const pairArgs = (m: Record<string, string | number | null> | undefined): string[] => {
  const e = Object.entries(m ?? {});
  return [String(e.length), ...e.flatMap(([k, v]) => [k, v === null ? '-' : String(v)])];
};

/** A machine's throttle as `mgates` holds it (lua/include/lcMachineRate.lua): 'limit:perMs:burst[:skip]'. */
const rateSpec = (r: RateLimit): string =>
  `${r.limit}:${r.perMs}:${r.burst ?? 0}${r.mode === 'skip' ? ':skip' : ''}`;

/** A machine's throttle from its `mgates` text. */
function readRateSpec(spec: string): RateLimit {
  const [limit, perMs, burst, mode] = spec.split(':');
  return {
    limit: Number(limit),
    perMs: Number(perMs),
    burst: Number(burst),
    ...(mode === 'skip' ? { mode: 'skip' as const } : {}),
  };
}

/** A throttle as `flow` holds it under `prefix` (rate, ratePer, rateBurst, rateMode). */
function readRate(flow: Record<string, string>, prefix: string): RateLimit | undefined {
  if (!flow[prefix]) return undefined;
  return {
    limit: Number(flow[prefix]),
    perMs: Number(flow[prefix + 'Per']),
    burst: Number(flow[prefix + 'Burst'] ?? 0),
    ...(flow[prefix + 'Mode'] === 'skip' ? { mode: 'skip' as const } : {}),
  };
}

export async function setQueueFlow(ctx: RedisContext, queue: string, change: QueueFlowChange): Promise<void> {
  const k = ctx.keys(queue);
  const paused = change.paused === undefined ? '' : change.paused ? '1' : '0';
  try {
    await ctx.run(
      'flow',
      [k.base + 'flow', k.queued, k.marker],
      [
        k.base,
        paused,
        limitArg(change.total),
        limitArg(change.perKey),
        ...rateArgs(change.rateLimit).slice(0, 3),
        change.strategy ?? '',
        change.fromDefinition ? 'def' : '',
        rateArgs(change.rateLimit)[3]!,
        ...rateArgs(change.keyRateLimit),
        ...pairArgs(change.gates),
        ...pairArgs(change.machineGates),
        change.fairness ?? '',
        ...pairArgs(
          change.machineRateLimits &&
            Object.fromEntries(
              Object.entries(change.machineRateLimits).map(([m, r]) => [m, r === null ? null : rateSpec(r)]),
            ),
        ),
      ],
    );
  } catch (err) {
    throw fromScriptError(err, { queue });
  }
}

/** The gate and its use: a read of a few keys, not atomic as a whole (a view, not a decision). */
export async function queueFlow(ctx: RedisContext, queue: string): Promise<QueueFlow> {
  const k = ctx.keys(queue);
  const [flow, running, inUse, pausedKeys, mgates, gateIds, time] = await Promise.all([
    ctx.redis.hgetall(k.base + 'flow'),
    ctx.redis.zcard(k.active),
    ctx.redis.smembers(k.base + 'ckkeys'),
    ctx.redis.smembers(k.base + 'kpaused'),
    ctx.redis.hgetall(k.base + 'mgates'),
    ctx.redis.smembers(k.base + 'gkeys'),
    ctx.redis.time(),
  ]);
  const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
  const paused = new Set(pausedKeys);
  // The running jobs' keys, read from `active` (slots are kept only while perKey is set, and
  // ckkeys lists the keys with a line: lua/include/lcFlow.lua).
  const runningByKey = await runningKeys(ctx, queue);
  const keys = [...new Set([...inUse, ...pausedKeys, ...runningByKey.keys()])].sort();
  const pipe = ctx.redis.pipeline();
  for (const key of keys) pipe.zcard(k.base + 'ckwait:' + key);
  const res = keys.length > 0 ? ((await pipe.exec()) ?? []) : [];
  const use: KeyUse[] = keys.map((key, i) => ({
    key,
    running: runningByKey.get(key) ?? 0,
    waiting: Number(res[i]?.[1] ?? 0),
    ...(paused.has(key) ? { paused: true as const } : {}),
  }));
  gateIds.sort();
  const gpipe = ctx.redis.pipeline();
  for (const g of gateIds) gpipe.scard(k.base + 'gh:' + g).zcard(k.base + 'gwait:' + g);
  const gres = gateIds.length > 0 ? ((await gpipe.exec()) ?? []) : [];
  const gateUse: GateUse[] = gateIds.map((gate, i) => ({
    gate,
    running: Number(gres[i * 2]?.[1] ?? 0),
    waiting: Number(gres[i * 2 + 1]?.[1] ?? 0),
  }));
  const gates: Record<string, number> = {};
  const machineGates: Record<string, string> = {};
  const machineRateLimits: Record<string, RateLimit> = {};
  for (const [f, v] of Object.entries(mgates)) {
    if (f.startsWith('g:')) gates[f.slice(2)] = Number(v);
    else if (f.startsWith('m:')) machineGates[f.slice(2)] = v;
    else if (f.startsWith('r:')) machineRateLimits[f.slice(2)] = readRateSpec(v);
  }
  const rateLimit = readRate(flow, 'rate');
  const keyRateLimit = readRate(flow, 'krate');
  const throttledUntil = nextStartAt(rateLimit, flow.tat === undefined ? undefined : Number(flow.tat), now);
  return {
    paused: flow.paused === '1',
    limits: {
      ...(flow.total ? { total: Number(flow.total) } : {}),
      ...(flow.perKey ? { perKey: Number(flow.perKey) } : {}),
      ...(rateLimit ? { rateLimit } : {}),
      ...(keyRateLimit ? { keyRateLimit } : {}),
      ...(Object.keys(gates).length > 0 ? { gates } : {}),
      ...(Object.keys(machineGates).length > 0 ? { machineGates } : {}),
      ...(Object.keys(machineRateLimits).length > 0 ? { machineRateLimits: sorted(machineRateLimits) } : {}),
      ...(flow.strategy ? { strategy: flow.strategy as KeyStrategy } : {}),
      ...(flow.fairness === 'roundRobin' ? { fairness: 'roundRobin' as const } : {}),
    },
    running,
    keys: use,
    ...(gateUse.length > 0 ? { gates: gateUse } : {}),
    ...(throttledUntil !== undefined ? { throttledUntil } : {}),
  };
}

/** `m` with its names in order (a hash's fields come in no order). */
const sorted = <T>(m: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1)));

/** Pauses or resumes one concurrency key of a stored queue (lua/keyPause-3.lua). */
export async function setKeyPaused(
  ctx: RedisContext,
  queue: string,
  key: string,
  paused: boolean,
): Promise<void> {
  const k = ctx.keys(queue);
  try {
    await ctx.run('keyPause', [k.base + 'flow', k.queued, k.marker], [k.base, key, paused ? '1' : '0']);
  } catch (err) {
    throw fromScriptError(err, { queue });
  }
}

/** How many running jobs each concurrency key has, from `active` and each job's `ck`. */
async function runningKeys(ctx: RedisContext, queue: string): Promise<Map<string, number>> {
  const k = ctx.keys(queue);
  const ids = await ctx.redis.zrange(k.active, '0', '-1');
  const pipe = ctx.redis.pipeline();
  for (const id of ids) pipe.hget(k.job(id), 'ck');
  const res = ids.length > 0 ? ((await pipe.exec()) ?? []) : [];
  const counts = new Map<string, number>();
  for (const [, ck] of res) if (typeof ck === 'string') counts.set(ck, (counts.get(ck) ?? 0) + 1);
  return counts;
}
