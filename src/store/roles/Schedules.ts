// ROLE Schedules (optional): where schedules live (docs/schedules.md). The store keeps each
// schedule as an opaque body (JSON text the client and the schedule loop write), a revision,
// and the time it is next due; what a schedule means (cron, overlap, catch-up) is all in
// src/client/schedules/, written once for every backend.
// An OPTIONAL role: a backend has it whole or not at all; callers ask with the guard below.
//
// THE COMPARE-AND-SET: every write names the revision it read (`expectedRev`), and is refused
// (null) when the schedule has changed since. A supervisor that read tick T advances the
// schedule past T only if nobody else did first, so two supervisors never both advance it (a
// tick's job id is made from its time, so a tick fired twice still makes one job).

/** One schedule as stored. */
export interface StoredSchedule {
  id: string;
  /** JSON text of the schedule (client/schedules/scheduleRecord.ts). */
  body: string;
  /** Bumped by every write; the first write makes revision 1. */
  rev: number;
  /** When the schedule loop should next look at it (ms since epoch), or null: never (paused, ended). */
  dueAt: number | null;
}

/** One write of putSchedules. */
export interface ScheduleWrite {
  id: string;
  body: string;
  dueAt: number | null;
  expectedRev: number;
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
   * gives up in bounded time).
   */
  putSchedule(
    id: string,
    body: string,
    dueAt: number | null,
    expectedRev?: number,
    fromLoop?: boolean,
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
}

export function hasSchedules<S extends object>(store: S): store is S & Schedules {
  const s = store as Partial<Schedules>;
  return typeof s.claimSchedules === 'function' && typeof s.putSchedule === 'function';
}
