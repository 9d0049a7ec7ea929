// The Schedules role in MemoryStore (roles/Schedules.ts), with RedisStore's semantics
// (lua/schedulePut-3.lua, scheduleRemove-3.lua, scheduleClaim-3.lua): each call is one `op`, so
// the compare-and-set and the claim are atomic as the scripts are. Kept in the data file.

import { MachinistError } from '../../errors.js';
import { CODE } from '../../errorCodes.js';
import type { ScheduleClaim, ScheduleWrite, StoredSchedule } from '../types.js';
import type { MemoryCore } from './MemoryCore.js';
import type { ScheduleTable } from './ScheduleTable.js';

function view(t: ScheduleTable, id: string): StoredSchedule | null {
  const d = t.defs.get(id);
  return d ? { id, body: d.body, rev: d.rev, dueAt: t.due.score(id) ?? null } : null;
}

/** One compare-and-set write, inside an op (see putSchedule). */
function write(
  core: MemoryCore,
  id: string,
  body: string,
  dueAt: number | null,
  expectedRev: number | undefined,
): number | null {
  const t = core.schedules;
  const rev = t.defs.get(id)?.rev ?? 0;
  if (expectedRev !== undefined && expectedRev !== rev) return null;
  t.defs.set(id, { body, rev: rev + 1 });
  if (dueAt === null) t.due.delete(id);
  else t.due.add(id, Math.round(dueAt));
  return rev + 1;
}

function check(id: string, body: string, dueAt: number | null, at = ''): void {
  if (!id || !body) throw new MachinistError(CODE.BAD_SCHEDULE, `BAD_SCHEDULE ${at}id or body missing`);
  if (dueAt !== null && !(Number.isFinite(dueAt) && dueAt >= 0))
    throw new MachinistError(CODE.BAD_SCHEDULE, `BAD_SCHEDULE ${at}due time`);
}

export function putSchedule(
  core: MemoryCore,
  id: string,
  body: string,
  dueAt: number | null,
  expectedRev: number | undefined,
): Promise<number | null> {
  return core.op(() => {
    check(id, body, dueAt);
    return write(core, id, body, dueAt, expectedRev);
  });
}

export function putSchedules(core: MemoryCore, writes: ScheduleWrite[]): Promise<(number | null)[]> {
  return core.op(() => {
    // All checked before the first write, as schedulePutMany-3.lua.
    writes.forEach((w, i) => check(w.id, w.body, w.dueAt, `${i} `));
    return writes.map((w) => write(core, w.id, w.body, w.dueAt, w.expectedRev));
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
      due.push({ id, body: d.body, rev: d.rev, dueAt: null });
    }
    return { now, due, next: t.due.first()?.score ?? null };
  });
}
