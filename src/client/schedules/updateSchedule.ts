// A read-modify-write of one schedule by compare-and-set on its revision (roles/Schedules.ts),
// tried again when a supervisor or a client wrote in between: the client's changes (pause,
// resume, trigger, backfill) and the schedule loop's pause on a failed job go through it.

import { ScheduleConflictError, ScheduleNotFoundError } from '../../errors.js';
import type { Schedules, Store } from '../../store/types.js';
import { decodeRecord, writeOf, type ScheduleRecord } from './scheduleRecord.js';

/** Tries of a read-modify-write before SCHEDULE_CONFLICT. */
export const UPDATE_TRIES = 10;

/**
 * Applies `change` to schedule `id` as stored and writes it whole (body, state, the actions
 * noted) if nobody wrote it meanwhile, else reads and tries again. `change` returning false
 * writes nothing. Resolves with the record as written (or as read, when nothing was) and the
 * store's time.
 */
export async function updateSchedule(
  store: Store & Schedules,
  id: string,
  change: (r: ScheduleRecord, now: number) => void | boolean | Promise<void | boolean>,
): Promise<{ r: ScheduleRecord; now: number }> {
  for (let i = 0; i < UPDATE_TRIES; i++) {
    const [stored, now] = await Promise.all([store.getSchedule(id), store.now()]);
    if (!stored) throw new ScheduleNotFoundError(id);
    const r = decodeRecord(stored);
    if ((await change(r, now)) === false) return { r, now };
    r.updatedAt = now;
    const w = writeOf(r, now, stored.rev, true);
    if ((await store.putSchedule(r.id, w.body!, w.dueAt, stored.rev, false, w.part)) !== null)
      return { r, now };
  }
  throw new ScheduleConflictError(id, UPDATE_TRIES);
}
