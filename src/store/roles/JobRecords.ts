// ROLE JobRecords (required): one job's record, its audit log, pages of records, and the two
// writes a client makes to a job it did not claim: cancel and send. `queue` is optional where a
// job can be found by id alone (the store searches its queues in name order).
// Argument order, in every role: a call on a queue's work takes `queue` first; a call on one job
// takes the job's id first, then `queue`, the locator that finds it.

import type { JobStatus } from '../jobStatus.js';
import type { AuditEntry, CancelOutcome, JobRecord, ListQuery } from '../jobRecord.js';

export interface JobRecords {
  getJob(id: string, queue?: string): Promise<JobRecord | null>;
  /**
   * The queue holding job `id` (its queues searched in name order), or null: no field of its
   * record read (a send that names no queue needs only this, and a record can be megabytes).
   */
  queueOf(id: string): Promise<string | null>;
  /** Just a job's status and whether a cancel was asked for (cheap: two fields). */
  jobStatus(id: string, queue: string): Promise<{ status: JobStatus; cancelRequested: boolean } | null>;
  /** The job's audit log, oldest first; JOB_NOT_FOUND for no such job. */
  getLog(id: string, queue?: string): Promise<AuditEntry[]>;
  /** A page of a queue's records (by status, machine or parent), and the cursor of the next. */
  list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }>;
  /**
   * Cancels a job atomically: at once when it is not running, else asks its worker (THE CANCEL
   * GUARD: its next write ends it cancelled). A repeat asks again and is logged once.
   */
  cancel(id: string, queue?: string, reason?: string): Promise<CancelOutcome>;
  /**
   * Appends an event to a job's inbox and wakes the job (parked) or its worker (running), once
   * per `eventId`: a resent send (a reply lost across a reconnect) is not delivered twice.
   * Resolves false when that id was delivered already, also once the job has ended (a finished
   * job keeps its sent events' ids until its record goes); an id it never had is refused then
   * (JOB_FINISHED).
   */
  send(id: string, queue: string, event: string, eventType: string, eventId: string): Promise<boolean>;
}
