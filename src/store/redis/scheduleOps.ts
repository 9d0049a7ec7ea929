// The Schedules role on Redis (roles/Schedules.ts): lua/schedulePut-3.lua, scheduleRemove-3.lua
// and scheduleClaim-3.lua write; reads are plain commands on the same three keys, all under the
// schedules' own hash tag (keys.ts scheduleKeys), never a queue's.

import { fromScriptError } from '../../errors.js';
import { scheduleKeys } from '../keys.js';
import type { ScheduleClaim, ScheduleWrite, StoredSchedule } from '../types.js';
import type { RedisContext } from './RedisContext.js';

function keysOf(ctx: RedisContext): string[] {
  const k = scheduleKeys(ctx.prefix);
  return [k.defs, k.revs, k.due];
}

export async function putSchedule(
  ctx: RedisContext,
  id: string,
  body: string,
  dueAt: number | null,
  expectedRev: number | undefined,
): Promise<number | null> {
  try {
    const rev = (await ctx.run('schedulePut', keysOf(ctx), [
      id,
      body,
      dueAt === null ? '' : Math.round(dueAt),
      expectedRev === undefined ? '' : expectedRev,
    ])) as number | null;
    return rev === null ? null : Number(rev);
  } catch (err) {
    throw fromScriptError(err);
  }
}

export async function putSchedules(ctx: RedisContext, writes: ScheduleWrite[]): Promise<(number | null)[]> {
  if (writes.length === 0) return [];
  const args: (string | number)[] = [writes.length];
  for (const w of writes) args.push(w.id, w.body, w.dueAt === null ? '' : Math.round(w.dueAt), w.expectedRev);
  try {
    const r = (await ctx.run('schedulePutMany', keysOf(ctx), args)) as (number | null)[];
    return r.map((x) => (x === null ? null : Number(x)));
  } catch (err) {
    throw fromScriptError(err);
  }
}

export async function removeSchedule(ctx: RedisContext, id: string): Promise<boolean> {
  return Number(await ctx.run('scheduleRemove', keysOf(ctx), [id])) === 1;
}

export async function getSchedule(ctx: RedisContext, id: string): Promise<StoredSchedule | null> {
  const k = scheduleKeys(ctx.prefix);
  const r = await ctx.redis.multi().hget(k.defs, id).hget(k.revs, id).zscore(k.due, id).exec();
  const [body, rev, due] = (r ?? []).map(([err, v]) => {
    if (err) throw err;
    return v as string | null;
  });
  if (!body) return null;
  return { id, body, rev: Number(rev ?? 0), dueAt: due == null ? null : Number(due) };
}

export async function listSchedules(ctx: RedisContext): Promise<StoredSchedule[]> {
  const k = scheduleKeys(ctx.prefix);
  const r = await ctx.redis
    .multi()
    .hgetall(k.defs)
    .hgetall(k.revs)
    .zrange(k.due, '0', '-1', 'WITHSCORES')
    .exec();
  const [defs, revs, due] = (r ?? []).map(([err, v]) => {
    if (err) throw err;
    return v;
  }) as [Record<string, string>, Record<string, string>, string[]];
  const dueOf = new Map<string, number>();
  for (let i = 0; i + 1 < due.length; i += 2) dueOf.set(due[i]!, Number(due[i + 1]));
  return Object.keys(defs)
    .sort()
    .map((id) => ({ id, body: defs[id]!, rev: Number(revs[id] ?? 0), dueAt: dueOf.get(id) ?? null }));
}

export async function claimSchedules(
  ctx: RedisContext,
  max: number,
  leaseMs: number,
): Promise<ScheduleClaim> {
  let r: string[];
  try {
    r = (await ctx.run(
      'scheduleClaim',
      [scheduleKeys(ctx.prefix).due, ...keysOf(ctx).slice(0, 2)],
      [max, Math.round(leaseMs)],
    )) as string[];
  } catch (err) {
    throw fromScriptError(err);
  }
  const due: StoredSchedule[] = [];
  for (let i = 2; i + 2 < r.length; i += 3)
    due.push({ id: r[i]!, rev: Number(r[i + 1]), body: r[i + 2]!, dueAt: null });
  return { now: Number(r[0]), next: r[1] === '' ? null : Number(r[1]), due };
}
