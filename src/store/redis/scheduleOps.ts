// The Schedules role on Redis (roles/Schedules.ts): lua/schedulePut-4.lua, scheduleRemove-4.lua,
// scheduleClaim-4.lua and scheduleWake-2.lua write; reads are plain commands on the same keys, all under the
// schedules' own hash tag (keys.ts scheduleKeys), never a queue's.

import { fromScriptError } from '../../errors.js';
import { scheduleKeys } from '../keys.js';
import {
  RECENT_KEPT,
  type ScheduleClaim,
  type ScheduleStatePart,
  type ScheduleWrite,
  type StoredSchedule,
} from '../types.js';
import type { RedisContext } from './RedisContext.js';

function keysOf(ctx: RedisContext): string[] {
  const k = scheduleKeys(ctx.prefix);
  return [k.defs, k.revs, k.due, k.state];
}

export async function putSchedule(
  ctx: RedisContext,
  id: string,
  body: string,
  dueAt: number | null,
  expectedRev: number | undefined,
  part: ScheduleStatePart | undefined,
): Promise<number | null> {
  return (await putSchedules(ctx, [{ id, body, dueAt, expectedRev: expectedRev ?? -1, part }]))[0]!;
}

/** `expectedRev` -1: any revision (putSchedule's undefined). */
export async function putSchedules(ctx: RedisContext, writes: ScheduleWrite[]): Promise<(number | null)[]> {
  if (writes.length === 0) return [];
  const args: (string | number)[] = [scheduleKeys(ctx.prefix).base, RECENT_KEPT, writes.length];
  for (const w of writes) {
    args.push(
      w.id,
      w.body ?? '',
      w.dueAt === null ? '' : Math.round(w.dueAt),
      w.expectedRev === -1 ? '' : w.expectedRev,
      w.part?.state ?? '',
      w.part?.actions.length ?? 0,
    );
    if (w.part) for (const a of w.part.actions) args.push(a);
  }
  try {
    const r = (await ctx.run('schedulePut', keysOf(ctx), args)) as (number | null)[];
    return r.map((x) => (x === null ? null : Number(x)));
  } catch (err) {
    throw fromScriptError(err);
  }
}

export async function removeSchedule(ctx: RedisContext, id: string): Promise<boolean> {
  return Number(await ctx.run('scheduleRemove', keysOf(ctx), [id, scheduleKeys(ctx.prefix).base])) === 1;
}

function results(r: [Error | null, unknown][] | null): unknown[] {
  return (r ?? []).map(([err, v]) => {
    if (err) throw err;
    return v;
  });
}

export async function getSchedule(ctx: RedisContext, id: string): Promise<StoredSchedule | null> {
  const k = scheduleKeys(ctx.prefix);
  const [body, rev, due, state, recent] = results(
    await ctx.redis
      .multi()
      .hget(k.defs, id)
      .hget(k.revs, id)
      .zscore(k.due, id)
      .hget(k.state, id)
      .lrange(k.recent(id), -RECENT_KEPT, -1)
      .exec(),
  ) as [string | null, string | null, string | null, string | null, string[]];
  if (!body) return null;
  return { id, body, state, recent, rev: Number(rev ?? 0), dueAt: due == null ? null : Number(due) };
}

/** Every schedule, its `recent` left empty (recentOf reads them: a list of thousands is read in slices). */
export async function listSchedules(ctx: RedisContext): Promise<StoredSchedule[]> {
  const k = scheduleKeys(ctx.prefix);
  const [defs, revs, due, states] = results(
    await ctx.redis
      .multi()
      .hgetall(k.defs)
      .hgetall(k.revs)
      .zrange(k.due, '0', '-1', 'WITHSCORES')
      .hgetall(k.state)
      .exec(),
  ) as [Record<string, string>, Record<string, string>, string[], Record<string, string>];
  const dueOf = new Map<string, number>();
  for (let i = 0; i + 1 < due.length; i += 2) dueOf.set(due[i]!, Number(due[i + 1]));
  return Object.keys(defs)
    .sort()
    .map((id) => ({
      id,
      body: defs[id]!,
      state: states[id] ?? null,
      recent: [],
      rev: Number(revs[id] ?? 0),
      dueAt: dueOf.get(id) ?? null,
    }));
}

/** The recent actions of `ids`, one LRANGE each, pipelined. */
export async function recentOf(ctx: RedisContext, ids: string[]): Promise<string[][]> {
  if (ids.length === 0) return [];
  const k = scheduleKeys(ctx.prefix);
  const p = ctx.redis.pipeline();
  // The newest RECENT_KEPT: the list holds up to twice that (putSchedule.lua trims it now and then).
  for (const id of ids) p.lrange(k.recent(id), -RECENT_KEPT, -1);
  return results(await p.exec()) as string[][];
}

/** lua/scheduleWake-2.lua: how many of `ids` were made due now. */
export async function wakeSchedules(ctx: RedisContext, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const k = scheduleKeys(ctx.prefix);
  return Number(await ctx.run('scheduleWake', [k.due, k.defs], ids));
}

export async function claimSchedules(
  ctx: RedisContext,
  max: number,
  leaseMs: number,
): Promise<ScheduleClaim> {
  let r: string[];
  const k = scheduleKeys(ctx.prefix);
  try {
    r = (await ctx.run(
      'scheduleClaim',
      [k.due, k.defs, k.revs, k.state],
      [max, Math.round(leaseMs)],
    )) as string[];
  } catch (err) {
    throw fromScriptError(err);
  }
  const due: StoredSchedule[] = [];
  for (let i = 2; i + 3 < r.length; i += 4)
    due.push({
      id: r[i]!,
      rev: Number(r[i + 1]),
      body: r[i + 2]!,
      state: r[i + 3] === '' ? null : r[i + 3]!,
      recent: [],
      dueAt: null,
    });
  return { now: Number(r[0]), next: r[1] === '' ? null : Number(r[1]), due };
}
