// ROLE Schedules (optional): where schedules live (docs/schedules.md). The store keeps each
// schedule as opaque texts the client and the schedule loop write, a revision, and the time it
// is next due. The texts are split by how often they change, so that a tick costs little: the
// `body` (the spec, paused, note: written by the client), the `state` (next tick, last job,
// counts: rewritten at every tick, small), and `recent`, the last RECENT_KEPT action texts, to
// which a write appends (a tick never reads or rewrites the ones before); what a schedule means (cron, overlap, catch-up) is all in
// src/client/schedules/, written once for every backend.
// An OPTIONAL role: a backend has it whole or not at all; callers ask with the guard below.
//
// THE COMPARE-AND-SET: every write names the revision it read (`expectedRev`), and is refused
// (null) when the schedule has changed since. A supervisor that read tick T advances the
// schedule past T only if nobody else did first, so two supervisors never both advance it (a
// tick's job id is made from its time, so a tick fired twice still makes one job).

/** How many action texts a schedule keeps (the newest). */
export const RECENT_KEPT = 20;

/** One schedule as stored. */
export interface StoredSchedule {
  id: string;
  /** JSON text of the schedule's spec part (client/schedules/scheduleRecord.ts). */
  body: string;
  /**
   * JSON text of its per-tick state, or null for a schedule written whole in `body` (as every
   * one was before the split, and a write without `state` still is).
   */
  state: string | null;
  /** Its last RECENT_KEPT action texts, oldest first; a claim leaves it empty (the loop only appends). */
  recent: string[];
  /** Bumped by every write; the first write makes revision 1. */
  rev: number;
  /** When the schedule loop should next look at it (ms since epoch), or null: never (paused, ended). */
  dueAt: number | null;
}

/** What a write sets besides the body: the state, and action texts appended to `recent`. */
export interface ScheduleStatePart {
  state: string;
  actions: string[];
}

/** One write of putSchedules (the schedule loop's). */
export interface ScheduleWrite {
  id: string;
  /** The new body, or null: the stored one is kept (a tick's write: only the state changes). */
  body: string | null;
  dueAt: number | null;
  expectedRev: number;
  /** Absent: the body is the whole schedule (state cleared, recent emptied), as before the split. */
  part?: ScheduleStatePart;
}

/** What one claim took. */
export interface ScheduleClaim {
  /** The store's clock at the claim (ms): the loop fires the ticks due by then. */
  now: number;
  /** The schedules due at `now`, each now held for the lease (its dueAt moved to now + leaseMs). */
  due: StoredSchedule[];
  /** The earliest dueAt left after the claim (held ones included), or null when none is due ever. */
  next: number | null;
}

export interface Schedules {
  /**
   * Writes schedule `id` when its revision is `expectedRev` (0: only if it does not exist;
   * undefined: whatever it is). Resolves with the new revision, or null when the revision
   * differed (nothing written). `dueAt` null takes it out of the claims. `fromLoop`: the
   * schedule loop's write, which waits out an outage as a supervisor's calls do (a client's
   * gives up in bounded time). `part`: the state written and the actions appended; without
   * it the body is the whole schedule (state cleared, recent emptied).
   */
  putSchedule(
    id: string,
    body: string,
    dueAt: number | null,
    expectedRev?: number,
    fromLoop?: boolean,
    part?: ScheduleStatePart,
  ): Promise<number | null>;
  /**
   * The schedule loop's writes of one claim, each its own compare-and-set (as putSchedule with
   * `fromLoop`), in one step: the new revision of each, or null where its revision differed.
   */
  putSchedules(writes: ScheduleWrite[]): Promise<(number | null)[]>;
  getSchedule(id: string): Promise<StoredSchedule | null>;
  /** Every schedule, by id. */
  listSchedules(): Promise<StoredSchedule[]>;
  /** Deletes it; false when there was none. */
  removeSchedule(id: string): Promise<boolean>;
  /**
   * Takes up to `max` schedules due by the store's clock, holding each for `leaseMs` (its dueAt
   * moves to now + leaseMs, so other supervisors pass it by meanwhile; a holder that dies lets
   * it come due again when the lease passes). Does not change their revisions.
   */
  claimSchedules(max: number, leaseMs: number): Promise<ScheduleClaim>;
  /**
   * Makes each of `ids` due now when it is due later (a paused or ended one stays out of the
   * claims), because what it waited for happened: the job its buffered ticks wait behind ended.
   * Does not change their revisions. Resolves with how many were moved.
   */
  wakeSchedules(ids: string[]): Promise<number>;
}

export function hasSchedules<S extends object>(store: S): store is S & Schedules {
  const s = store as Partial<Schedules>;
  return typeof s.claimSchedules === 'function' && typeof s.putSchedule === 'function';
}
