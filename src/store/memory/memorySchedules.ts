// The Schedules role in MemoryStore (roles/Schedules.ts), with RedisStore's semantics
// (lua/schedulePut-4.lua, scheduleRemove-4.lua, scheduleClaim-4.lua, scheduleWake-2.lua): each call is one `op`, so
// the compare-and-set and the claim are atomic as the scripts are. Kept in the data file.

import { MachinistError } from '../../errors.js';
import { CODE } from '../../errorCodes.js';
import {
  RECENT_KEPT,
  type ScheduleClaim,
  type ScheduleStatePart,
  type ScheduleWrite,
  type StoredSchedule,
} from '../types.js';
import type { MemoryCore } from './MemoryCore.js';
import type { ScheduleTable } from './ScheduleTable.js';

function view(t: ScheduleTable, id: string): StoredSchedule | null {
  const d = t.defs.get(id);
  return d
    ? { id, body: d.body, state: d.state, recent: [...d.recent], rev: d.rev, dueAt: t.due.score(id) ?? null }
    : null;
}

/**
 * One compare-and-set write, inside an op (see putSchedule): `body` null keeps the stored one;
 * without `part` the body is the whole schedule (state cleared, recent emptied).
 */
function write(
  core: MemoryCore,
  id: string,
  body: string | null,
  dueAt: number | null,
  expectedRev: number | undefined,
  part: ScheduleStatePart | undefined,
): number | null {
  const t = core.schedules;
  const old = t.defs.get(id);
  const rev = old?.rev ?? 0;
  if (expectedRev !== undefined && expectedRev !== rev) return null;
  // A body kept needs one stored: the compare-and-set of a removed schedule fails above (rev 0),
  // and a create-only write (expected 0) with no body is refused by check().
  const recent = part ? [...(old?.recent ?? []), ...part.actions].slice(-RECENT_KEPT) : [];
  t.defs.set(id, { body: body ?? old!.body, rev: rev + 1, state: part?.state ?? null, recent });
  if (dueAt === null) t.due.delete(id);
  else t.due.add(id, Math.round(dueAt));
  return rev + 1;
}

function check(w: Pick<ScheduleWrite, 'id' | 'body' | 'dueAt' | 'expectedRev' | 'part'>, at = ''): void {
  const { id, body, dueAt } = w;
  // A write that keeps the body must name a revision it read (the schedule exists then) and carry a state.
  const keptBadly = body === null && (!w.part || !w.expectedRev);
  if (!id || body === '' || keptBadly || w.part?.state === '')
    throw new MachinistError(CODE.BAD_SCHEDULE, `BAD_SCHEDULE ${at}id or body missing`);
  if (dueAt !== null && !(Number.isFinite(dueAt) && dueAt >= 0))
    throw new MachinistError(CODE.BAD_SCHEDULE, `BAD_SCHEDULE ${at}due time`);
}

export function putSchedule(
  core: MemoryCore,
  id: string,
  body: string,
  dueAt: number | null,
  expectedRev: number | undefined,
  part?: ScheduleStatePart,
): Promise<number | null> {
  return core.op(() => {
    check({ id, body, dueAt, expectedRev: expectedRev ?? 1, part });
    return write(core, id, body, dueAt, expectedRev, part);
  });
}

export function putSchedules(core: MemoryCore, writes: ScheduleWrite[]): Promise<(number | null)[]> {
  return core.op(() => {
    // All checked before the first write, as schedulePut-4.lua.
    writes.forEach((w, i) => check(w, `${i} `));
    return writes.map((w) => write(core, w.id, w.body, w.dueAt, w.expectedRev, w.part));
  });
}

export function getSchedule(core: MemoryCore, id: string): Promise<StoredSchedule | null> {
  return core.op(() => view(core.schedules, id), false);
}

export function listSchedules(core: MemoryCore): Promise<StoredSchedule[]> {
  return core.op(() => [...core.schedules.defs.keys()].sort().map((id) => view(core.schedules, id)!), false);
}

export function removeSchedule(core: MemoryCore, id: string): Promise<boolean> {
  return core.op(() => {
    core.schedules.due.delete(id);
    return core.schedules.defs.delete(id);
  });
}

export function claimSchedules(core: MemoryCore, max: number, leaseMs: number): Promise<ScheduleClaim> {
  // Nothing due: a read, so an idle schedule loop (one claim a second) does not rewrite the data file.
  const first = core.schedules.due.first();
  if (!first || first.score > core.clock())
    return core.op(() => ({ now: core.opNow, due: [], next: first?.score ?? null }), false);
  return core.op(() => {
    if (!(Number.isInteger(max) && max >= 1 && leaseMs > 0))
      throw new MachinistError(CODE.BAD_SCHEDULE, 'BAD_SCHEDULE claim count or lease ms');
    const now = core.opNow;
    const t = core.schedules;
    const due: StoredSchedule[] = [];
    for (const { member: id } of t.due.popUpTo(now, max)) {
      const d = t.defs.get(id);
      if (!d) continue;
      t.due.add(id, now + Math.round(leaseMs));
      due.push({ id, body: d.body, state: d.state, recent: [], rev: d.rev, dueAt: null });
    }
    return { now, due, next: t.due.first()?.score ?? null };
  });
}

/** As lua/scheduleWake-2.lua: each of `ids` due later is made due now; how many were. */
export function wakeSchedules(core: MemoryCore, ids: string[]): Promise<number> {
  if (ids.length === 0) return Promise.resolve(0);
  return core.op(() => {
    const now = core.opNow;
    let moved = 0;
    for (const id of ids) {
      const due = core.schedules.due.score(id);
      if (due !== undefined && due > now && core.schedules.defs.has(id)) {
        core.schedules.due.add(id, now);
        moved++;
      }
    }
    return moved;
  });
}
