// Follows the jobs a schedule waits on to their end, for the schedule loop (ScheduleLoop.ts):
// the job that buffered ticks wait behind (overlap bufferOne / bufferAll), and each job of a
// schedule with pauseOnFailure. Its end is told to the loop at once, which pauses the schedule
// (a failure under pauseOnFailure) and wakes it, so a buffered tick starts as soon as the job
// before it ended, not at the schedule's next re-check.
//
// No end is missed between the loop's read of the job and the follow: a follow marks the job
// and reads it in one step (ResultWaiters, Store.watchJob), so a job that ended meanwhile is
// told at once. A follow lives in this process only: a supervisor killed while following leaves
// the schedule to its re-check (`bufferRecheckMs`) and the next pass (which pauses for a last
// job found failed), so the follow makes things prompt and the passes keep them sure.

import type { Logger } from 'pino';
import { ResultWaiters } from '../client/ResultWaiters.js';
import type { JobRecord, Store } from '../store/types.js';

/** A follow gives up after this long; the schedule's next pass follows the job again. */
const FOLLOW_MS = 3_600_000;
/** Most jobs followed at once: past it the re-checks carry the rest. */
const MAX_FOLLOWED = 100_000;

export class ScheduleWatch {
  private readonly waiters: ResultWaiters;
  /** Followed job id -> its schedule's id, and whether its end must wake the schedule. */
  private readonly followed = new Map<string, { scheduleId: string; wakes: boolean }>();
  private readonly stopped = new AbortController();

  constructor(
    store: Store,
    private readonly ended: (scheduleId: string, job: JobRecord, wakes: boolean) => void,
    private readonly log: Logger,
  ) {
    this.waiters = new ResultWaiters(store);
  }

  /**
   * Tells `ended` when job `jobId` (of `queue`, started by schedule `scheduleId`) has finished;
   * `wakes`: ticks wait behind it (a job followed twice wakes if either follow asked).
   */
  follow(scheduleId: string, jobId: string, queue: string, wakes: boolean): void {
    const known = this.followed.get(jobId);
    if (known) {
      known.wakes ||= wakes;
      return;
    }
    if (this.stopped.signal.aborted || this.followed.size >= MAX_FOLLOWED) return;
    const f = { scheduleId, wakes };
    this.followed.set(jobId, f);
    this.waiters
      .waitFor(jobId, { queue, timeoutMs: FOLLOW_MS, signal: this.stopped.signal })
      .then(
        (job) => this.ended(scheduleId, job, f.wakes),
        (err: unknown) => {
          if (!this.stopped.signal.aborted)
            this.log.debug(
              { err, scheduleId, jobId },
              'schedule: follow of a job ended; its re-check carries on',
            );
        },
      )
      .finally(() => this.followed.delete(jobId));
  }

  close(): void {
    this.stopped.abort();
    this.waiters.close();
    this.followed.clear();
  }
}
