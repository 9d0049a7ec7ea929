// A schedule as stored (roles/Schedules.ts): its spec and the state the schedule loop keeps,
// and when it is next due. Written by the client (create, update, pause, trigger, backfill) and
// by the schedule loop (advancing past fired ticks), always by compare-and-set.
//
// Stored in three parts, by how often they change (docs/data-format.md, Schedules):
//   body    COLD_FIELDS (the spec, paused, note): written by the client only
//   state   the rest but `recent`: rewritten by every tick, so kept small (~150 bytes)
//   recent  one text per action, appended: a tick writes its own actions, never the 20 before
// A tick therefore decodes and encodes the state only, and its write carries no body. A schedule
// stored whole in its body (`state` null: written before the split) is read as it is and written
// split by its next write (writeOf), its actions then appended to an empty list.

import type { ScheduleSpec } from './scheduleSpec.js';
import { RECENT_KEPT, type ScheduleWrite, type StoredSchedule } from '../../store/types.js';

/** A tick held back by bufferOne/bufferAll until the previous job ends. `manual`: a trigger's. */
export interface HeldTick {
  at: number;
  manual?: true;
}

/** One thing a schedule did, newest last (the last RECENT_KEPT are kept). */
export interface ScheduleAction {
  /** The tick's time (ms). */
  at: number;
  what: 'started' | 'skipped' | 'buffered' | 'missed' | 'cancelledOther' | 'error' | 'paused';
  jobId?: string;
  /** For missed: how many ticks, from `at` on; for error: what went wrong; for paused: the job's error. */
  detail?: string;
}

export { RECENT_KEPT };

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
  /**
   * The job whose failure last paused the schedule (spec.pauseOnFailure): that failure pauses
   * it once, so a resume is not undone by the same failed job. Absent in states written before.
   */
  pausedOnFailureOf?: string;
}

/**
 * How long a schedule with buffered ticks waits before it is looked at again, when a client
 * wrote it (a buffered trigger): soon, so that a schedule loop starts following the job the
 * ticks wait for. The loop's own writes pass a longer one (ScheduleLoop: the job's ending wakes
 * the schedule; the re-check is only the net under a lost follow).
 */
export const BUFFER_RECHECK_MS = 1000;

/** A schedule that has fired nothing yet, created at `now`, its first tick `next`. */
export function newScheduleRecord(
  id: string,
  spec: ScheduleSpec,
  now: number,
  next: number | null,
  o: { paused?: boolean; note?: string | null } = {},
): ScheduleRecord {
  return {
    id,
    spec,
    paused: o.paused ?? false,
    note: o.note ?? null,
    next,
    buffered: [],
    lastJob: null,
    recent: [],
    started: 0,
    skipped: 0,
    missed: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** When the loop should next look at it (Schedules.putSchedule's dueAt). */
export function dueAtOf(r: ScheduleRecord, now: number, bufferRecheckMs = BUFFER_RECHECK_MS): number | null {
  if (r.paused) return null;
  if (r.buffered.length > 0) return Math.min(r.next ?? Infinity, now + bufferRecheckMs);
  return r.next;
}

/** The body's fields: what only the client changes. */
type ColdFields = Pick<ScheduleRecord, 'id' | 'spec' | 'paused' | 'note' | 'createdAt'>;
/** The state's fields: what a tick changes. */
type HotFields = Omit<ScheduleRecord, keyof ColdFields | 'recent'>;

/** What a record read must write besides its fields: the actions noted since, and whether it is stored whole. */
interface Unwritten {
  actions: ScheduleAction[];
  whole: boolean;
}
const unwritten = new WeakMap<ScheduleRecord, Unwritten>();

function pendingOf(r: ScheduleRecord): Unwritten {
  let p = unwritten.get(r);
  if (!p) unwritten.set(r, (p = { actions: [], whole: false }));
  return p;
}

export function encodeBody(r: ScheduleRecord): string {
  const cold: ColdFields = { id: r.id, spec: r.spec, paused: r.paused, note: r.note, createdAt: r.createdAt };
  return JSON.stringify(cold);
}

export function encodeState(r: ScheduleRecord): string {
  const hot: HotFields = {
    next: r.next,
    buffered: r.buffered,
    lastJob: r.lastJob,
    started: r.started,
    skipped: r.skipped,
    missed: r.missed,
    updatedAt: r.updatedAt,
  };
  if (r.pausedOnFailureOf !== undefined) hot.pausedOnFailureOf = r.pausedOnFailureOf;
  return JSON.stringify(hot);
}

/**
 * Reads a stored schedule. `body` parsed already (the schedule loop keeps the parsed body of
 * each schedule while its text is unchanged, so a tick parses the small state only).
 */
export function decodeRecord(s: StoredSchedule, body?: ColdFields): ScheduleRecord {
  if (s.state === null) {
    // Stored whole (before the split): its next write writes it split (writeOf).
    const r = JSON.parse(s.body) as ScheduleRecord;
    pendingOf(r).whole = true;
    return r;
  }
  const cold = body ?? (JSON.parse(s.body) as ColdFields);
  const hot = JSON.parse(s.state) as HotFields;
  // Field by field, not `{ ...cold, ...hot }`: the spread of two parsed objects took 13 us a
  // record against 1 us (node 20), the largest cost of a schedule's tick in the 10,000-schedule
  // bench (docs/schedules.md, Measured).
  const r: ScheduleRecord = {
    id: cold.id,
    spec: cold.spec,
    paused: cold.paused,
    note: cold.note,
    createdAt: cold.createdAt,
    next: hot.next,
    buffered: hot.buffered,
    lastJob: hot.lastJob,
    started: hot.started,
    skipped: hot.skipped,
    missed: hot.missed,
    updatedAt: hot.updatedAt,
    recent: s.recent.length === 0 ? [] : s.recent.map((a) => JSON.parse(a) as ScheduleAction),
  };
  if (hot.pausedOnFailureOf !== undefined) r.pausedOnFailureOf = hot.pausedOnFailureOf;
  return r;
}

/** The parsed body of a stored schedule (decodeRecord's `body`). */
export function decodeBody(text: string): ColdFields {
  return JSON.parse(text) as ColdFields;
}

/**
 * The write that stores `r` (read at revision `expectedRev`) as it now is: its state, the
 * actions noted since it was read, and its body when `withBody` (a client's change) or when it
 * was stored whole (then every action it keeps goes in, to an empty list).
 */
export function writeOf(
  r: ScheduleRecord,
  now: number,
  expectedRev: number,
  withBody: boolean,
  bufferRecheckMs?: number,
): ScheduleWrite {
  const p = unwritten.get(r);
  const actions = p?.whole ? r.recent : (p?.actions ?? []);
  return {
    id: r.id,
    body: withBody || p?.whole ? encodeBody(r) : null,
    dueAt: dueAtOf(r, now, bufferRecheckMs),
    expectedRev,
    part: { state: encodeState(r), actions: actions.slice(-RECENT_KEPT).map((a) => JSON.stringify(a)) },
  };
}

export function noteAction(r: ScheduleRecord, a: ScheduleAction): void {
  r.recent.push(a);
  if (r.recent.length > RECENT_KEPT) r.recent.splice(0, r.recent.length - RECENT_KEPT);
  pendingOf(r).actions.push(a);
}
