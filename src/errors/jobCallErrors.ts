// A call about one job that cannot be answered: the job is not there, has finished, is no longer
// this worker's to write, or did not finish in time.

import { CODE } from '../errorCodes.js';
import { type ErrorIds, MachinistError } from './MachinistError.js';

export class JobNotFoundError extends MachinistError {
  constructor(jobId: string, queue?: string) {
    super(CODE.JOB_NOT_FOUND, `job ${jobId} does not exist${queue ? ` in queue '${queue}'` : ''}`, {
      jobId,
      queue,
    });
  }
}

export class JobFinishedError extends MachinistError {
  constructor(jobId: string, status: string) {
    super(CODE.JOB_FINISHED, `job ${jobId} has already finished (${status})`, { jobId });
  }
}

/** A write by a worker whose lease has passed: the job belongs to someone else now. */
export class LeaseLostError extends MachinistError {
  constructor(jobId: string) {
    super(CODE.LEASE_LOST, `lease on job ${jobId} was lost; this worker may no longer write it`, { jobId });
  }
}

export class TimeoutError extends MachinistError {
  /**
   * A wait for many jobs (Client.enqueueManyAndWait): every job of it not finished in time, in
   * the batch's order (`jobId` is the first of them). Absent for a wait for one job.
   */
  readonly jobIds?: readonly string[];
  constructor(message: string, ids: ErrorIds = {}, jobIds?: readonly string[]) {
    super(CODE.TIMEOUT, message, ids);
    if (jobIds) this.jobIds = jobIds;
  }

  /** One job's wait ended at its bound (a wait for one job, or each late job of a batch). */
  static forJob(jobId: string, queue: string | undefined, timeoutMs: number): TimeoutError {
    return new TimeoutError(`job ${jobId} did not finish within ${timeoutMs} ms`, { jobId, queue });
  }
}

/**
 * A queue's partition count asked to change while the queue (or a partition of it) holds jobs:
 * they would no longer be where their ids say. `partitions` is the count in force.
 */
export class PartitionsInUseError extends MachinistError {
  constructor(
    queue: string,
    readonly partitions: number,
    readonly wanted: number,
  ) {
    super(
      CODE.PARTITIONS_IN_USE,
      `queue '${queue}' holds jobs: its partitions stay ${partitions} (asked ${wanted}) until it is empty`,
      { queue },
    );
  }
}
