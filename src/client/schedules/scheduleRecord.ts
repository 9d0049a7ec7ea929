// A schedule as stored (the body of roles/Schedules.ts): its spec and the state the schedule
// loop keeps, and when it is next due. Written by the client (create, update, pause, trigger,
// backfill) and by the schedule loop (advancing past fired ticks), always by compare-and-set.

import type { ScheduleSpec } from './scheduleSpec.js';
import type { StoredSchedule } from '../../store/types.js';

/** A tick held back by bufferOne/bufferAll until the previous job ends. `manual`: a trigger's. */
export interface HeldTick {
  at: number;
  manual?: true;
}

/** One thing a schedule did, newest last (the last RECENT_KEPT are kept). */
export interface ScheduleAction {
  /** The tick's time (ms). */
  at: number;
  what: 'started' | 'skipped' | 'buffered' | 'missed' | 'cancelledOther' | 'error';
  jobId?: string;
  /** For missed: how many ticks, from `at` on; for error: what went wrong. */
  detail?: string;
}

export const RECENT_KEPT = 20;

export interface ScheduleRecord {
  id: string;
  spec: ScheduleSpec;
  paused: boolean;
  note: string | null;
  /** The next tick not yet handled (ms), or null when no tick is left (past endAt). */
  next: number | null;
  buffered: HeldTick[];
  /** The job the latest tick started (the overlap policies look at it). */
  lastJob: { id: string; queue: string; at: number } | null;
  recent: ScheduleAction[];
  /** Ticks that started a job, were skipped (overlap), or were missed (out of the catch-up window). */
  started: number;
  skipped: number;
  missed: number;
  createdAt: number;
  updatedAt: number;
}

/** How long a schedule with buffered ticks waits before looking again whether its job ended. */
export const BUFFER_RECHECK_MS = 1000;

/** When the loop should next look at it (Schedules.putSchedule's dueAt). */
export function dueAtOf(r: ScheduleRecord, now: number): number | null {
  if (r.paused) return null;
  if (r.buffered.length > 0) return Math.min(r.next ?? Infinity, now + BUFFER_RECHECK_MS);
  return r.next;
}

export function encodeRecord(r: ScheduleRecord): string {
  return JSON.stringify(r);
}

export function decodeRecord(s: StoredSchedule): ScheduleRecord {
  return JSON.parse(s.body) as ScheduleRecord;
}

export function noteAction(r: ScheduleRecord, a: ScheduleAction): void {
  r.recent.push(a);
  if (r.recent.length > RECENT_KEPT) r.recent.splice(0, r.recent.length - RECENT_KEPT);
}
