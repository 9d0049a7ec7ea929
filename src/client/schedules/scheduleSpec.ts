// What a schedule is (docs/schedules.md): the options a user gives (`ScheduleOptions`), and the
// checked, normalized form stored and run (`ScheduleSpec`). validateSchedule() is the one place
// a schedule is refused, with INVALID_SCHEDULE naming the field, before anything is written.

import { Cron } from 'croner';
import { InvalidScheduleError, ValidationError } from '../../errors.js';
import { assertQueueName } from '../../store/keys.js';

/**
 * What a tick does while the previous tick's job is unfinished (Temporal's overlap policies):
 * skip it (default), buffer one (run it when the previous ends; later ones are skipped), buffer
 * all (run each in turn), cancel the running job and start, or start regardless.
 */
export type OverlapPolicy = 'skip' | 'bufferOne' | 'bufferAll' | 'cancelOther' | 'allowAll';
export const OVERLAP_POLICIES: readonly OverlapPolicy[] = [
  'skip',
  'bufferOne',
  'bufferAll',
  'cancelOther',
  'allowAll',
];

/** A time as ms since epoch, a Date, or an ISO 8601 text. */
export type TimeInput = number | Date | string;

export interface ScheduleOptions {
  /** A cron pattern (croner: 5 fields, or 6 with seconds first, or 7 with a year; L, W, #). */
  cron?: string;
  /** Or an interval: ticks at startAt + k * everyMs (startAt default the epoch, so aligned). */
  everyMs?: number;
  /** The machine each tick's job runs (a registered name). */
  machine: string;
  /** The input of each tick's job. Default null. */
  input?: unknown;
  /** Default: the client's queue. */
  queue?: string;
  /** IANA time zone the cron is read in. Default 'UTC'. */
  timezone?: string;
  /** Default 'skip'. */
  overlap?: OverlapPolicy;
  /** Missed ticks younger than this run when the schedule is next looked at; older ones are skipped. Default 60 s. */
  catchupWindowMs?: number;
  /** Each tick's job is delayed by a stable pseudo-random amount below this. Default 0. */
  jitterMs?: number;
  /** No tick before this. */
  startAt?: TimeInput;
  /** No tick after this. */
  endAt?: TimeInput;
  /** Create or keep it paused (no ticks fire while paused; a resume does not catch up). */
  paused?: boolean;
  /** Why it is paused (with `paused`). */
  note?: string;
  /**
   * Pause the schedule when a tick's job ends failed (Temporal's pauseOnFailure), with a note
   * naming the job and its error; resumeSchedule clears it. Default false.
   */
  pauseOnFailure?: boolean;
}

/** A schedule's spec as stored: every default filled in, times as ms. */
export interface ScheduleSpec {
  cron?: string;
  everyMs?: number;
  machine: string;
  input: unknown;
  queue: string;
  timezone: string;
  overlap: OverlapPolicy;
  catchupWindowMs: number;
  jitterMs: number;
  startAt?: number;
  endAt?: number;
  /** Present (true) only when asked for, so a stored spec without it reads the same. */
  pauseOnFailure?: true;
}

/**
 * Shortest interval. Each tick is a claim, a job and a write: below 100 ms the round trips of
 * one tick would overlap the next on a loaded store, for no use a cron user has (cron's finest
 * is a second).
 */
export const MIN_EVERY_MS = 100;
export const DEFAULT_CATCHUP_WINDOW_MS = 60_000;
/** Longest catch-up window and jitter: a year. */
export const MAX_WINDOW_MS = 366 * 24 * 3600_000;

const SCHEDULE_ID = /^[A-Za-z0-9._:-]{1,100}$/;

export function assertScheduleId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || !SCHEDULE_ID.test(id))
    throw new ValidationError(
      `schedule id must be 1-100 characters of letters, digits, '.', '_', ':' or '-' (got ${JSON.stringify(id)})`,
      { field: 'id' },
    );
}

/** A time zone Intl knows (IANA names), or undefined. */
function knownZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function timeOf(id: string, field: string, v: TimeInput | undefined): number | undefined {
  if (v === undefined || v === null) return undefined;
  const ms = v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : v;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    throw new InvalidScheduleError(id, field, 'must be a time (ms since epoch, a Date or an ISO 8601 text)');
  return Math.round(ms);
}

function msOf(id: string, field: string, v: unknown, fallback: number, min = 0): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > MAX_WINDOW_MS)
    throw new InvalidScheduleError(id, field, `must be a number of ms from ${min} to ${MAX_WINDOW_MS}`);
  return Math.round(v);
}

/**
 * Checks `o` and fills in its defaults. `defaultQueue`: the client's. Does not check the machine
 * (the caller asks the registry) nor the input (its schema is the machine's).
 */
export function validateSchedule(id: string, o: ScheduleOptions, defaultQueue: string): ScheduleSpec {
  assertScheduleId(id);
  if (!o || typeof o !== 'object') throw new InvalidScheduleError(id, 'options', 'must be an object');
  if (typeof o.machine !== 'string' || o.machine === '')
    throw new InvalidScheduleError(id, 'machine', 'must name a machine');
  if ((o.cron === undefined) === (o.everyMs === undefined))
    throw new InvalidScheduleError(id, 'cron', 'or everyMs: exactly one must be given');
  const timezone = o.timezone ?? 'UTC';
  if (typeof timezone !== 'string' || !knownZone(timezone))
    throw new InvalidScheduleError(
      id,
      'timezone',
      `is not a known IANA time zone (got ${JSON.stringify(timezone)})`,
    );
  const spec: ScheduleSpec = {
    machine: o.machine,
    input: o.input ?? null,
    queue: o.queue ?? defaultQueue,
    timezone,
    overlap: o.overlap ?? 'skip',
    catchupWindowMs: msOf(id, 'catchupWindowMs', o.catchupWindowMs, DEFAULT_CATCHUP_WINDOW_MS),
    jitterMs: msOf(id, 'jitterMs', o.jitterMs, 0),
  };
  try {
    assertQueueName(spec.queue);
  } catch {
    throw new InvalidScheduleError(id, 'queue', `is not a queue name (got ${JSON.stringify(spec.queue)})`);
  }
  if (spec.queue.includes('#'))
    throw new InvalidScheduleError(id, 'queue', 'names a queue, not a partition of one');
  if (o.pauseOnFailure !== undefined && typeof o.pauseOnFailure !== 'boolean')
    throw new InvalidScheduleError(id, 'pauseOnFailure', 'must be true or false');
  if (o.pauseOnFailure) spec.pauseOnFailure = true;
  if (!OVERLAP_POLICIES.includes(spec.overlap))
    throw new InvalidScheduleError(id, 'overlap', `must be one of ${OVERLAP_POLICIES.join(', ')}`);
  if (o.cron !== undefined) {
    if (typeof o.cron !== 'string') throw new InvalidScheduleError(id, 'cron', 'must be a text');
    try {
      new Cron(o.cron, { timezone }).nextRun();
    } catch (err) {
      throw new InvalidScheduleError(id, 'cron', `is not a valid pattern: ${(err as Error).message}`);
    }
    spec.cron = o.cron.trim();
  } else {
    spec.everyMs = msOf(id, 'everyMs', o.everyMs, 0, MIN_EVERY_MS);
  }
  const startAt = timeOf(id, 'startAt', o.startAt);
  const endAt = timeOf(id, 'endAt', o.endAt);
  if (startAt !== undefined) spec.startAt = startAt;
  if (endAt !== undefined) spec.endAt = endAt;
  if (startAt !== undefined && endAt !== undefined && endAt < startAt)
    throw new InvalidScheduleError(id, 'endAt', 'is before startAt');
  return spec;
}

/** The fields that decide when ticks fall: a change to one of them reckons the next tick anew. */
export function sameTiming(a: ScheduleSpec, b: ScheduleSpec): boolean {
  return (
    a.cron === b.cron &&
    a.everyMs === b.everyMs &&
    a.timezone === b.timezone &&
    a.startAt === b.startAt &&
    a.endAt === b.endAt
  );
}
