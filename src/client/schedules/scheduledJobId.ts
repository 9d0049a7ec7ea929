// A tick's job id, made from the schedule's id and the tick's time: EXACTLY ONE JOB PER TICK.
// However many supervisors fire a tick (one died after enqueueing and before advancing the
// schedule; a lease passed under a slow one), each enqueues the same id, and the store makes a
// job of an id once (enqueue-5.lua, MemoryStore's enqueueJobs). Backfill uses the same ids, so
// backfilling ticks that already ran starts nothing new (while their records are retained).
//
//   `sch.<scheduleId>.<tickMs>`      a tick of the spec (or a backfilled one)
//   `sch.<scheduleId>.m<ms>`         a trigger (triggerSchedule), at the store's time then
// On a partitioned queue the id starts `<i>~` (store/partitions.ts), i = FNV-1a(schedule id) mod
// N: every tick of a schedule goes to one partition, which the id names.

import { fnv1a } from '../../store/partitions.js';

export function scheduledJobId(scheduleId: string, at: number, manual: boolean, partition?: number): string {
  const id = `sch.${scheduleId}.${manual ? 'm' : ''}${at}`;
  return partition === undefined ? id : `${partition}~${id}`;
}

const SCHEDULED = /^(?:\d{1,4}~)?sch\.(.+)\.(m?)(\d+)$/;

/**
 * The schedule and tick a job was started for, read from its id, or null for any other job.
 * @example scheduledJobInfo(job.id) // { scheduleId: 'nightly', at: 1767225600000, manual: false }
 */
export function scheduledJobInfo(jobId: string): { scheduleId: string; at: number; manual: boolean } | null {
  const m = SCHEDULED.exec(jobId);
  return m ? { scheduleId: m[1]!, at: Number(m[3]), manual: m[2] === 'm' } : null;
}

/** A tick's jitter: stable (the same on every supervisor and every retry), below `jitterMs`. */
export function jitterOf(scheduleId: string, at: number, jitterMs: number): number {
  return jitterMs > 0 ? fnv1a(`${scheduleId}:${at}`) % jitterMs : 0;
}
