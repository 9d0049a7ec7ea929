// ROLE ResultWatch (required): a client waiting for jobs to finish. A watcher registers on a job
// and reads the final records pushed to it, in the order the jobs finished.
// Argument order, in every role: a call on a queue's work takes `queue` first; a call on one job
// takes the job's id first, then `queue`, the locator that finds it (types.ts lists the exceptions).

import type { JobRecord } from '../jobRecord.js';

export interface ResultWatch {
  /**
   * Reads a job's record (as getJob) and, unless it has finished, registers `watcherId` as
   * waiting for it, in one atomic step: when the job finishes, its final record is delivered to
   * that watcher's `readResults`. Null when there is no such job.
   */
  watchJob(id: string, queue: string, watcherId: string): Promise<JobRecord | null>;
  /** Takes a watcher off a job it no longer waits for (its waits gave up). */
  unwatchJob(id: string, queue: string, watcherId: string): Promise<void>;
  /**
   * Final records of jobs `watcherId` watched, in the order they finished, blocking up to
   * `blockMs` for the first. Each is delivered once; what no reader takes within a minute is
   * dropped (a watcher that gave up never reads it).
   */
  readResults(queue: string, watcherId: string, blockMs: number): Promise<JobRecord[]>;
  /** The watcher stops reading (for now): what `readResults` holds open for it may close. */
  endResults(queue: string, watcherId: string): void;
}
