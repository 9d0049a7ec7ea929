// A job's record as the stores hand it out (JobRecord), its audit log's entries, the query that
// lists records, and what a cancel did. Read and written through the JobRecords role
// (roles/JobRecords.ts).

import type { StoredError } from '../errors.js';
import type { JobStatus } from './jobStatus.js';

/**
 * A job as stored. `Output` is the job's output type when the record was read through a typed
 * job id (client/jobTypes.ts: `JobId`); `output` is null until the job is done.
 */
export interface JobRecord<Output = unknown> {
  id: string;
  queue: string;
  machine: string;
  version: number;
  status: JobStatus;
  /** The current state value of the job's machine (the user machine for pipelines). */
  state: unknown;
  /** A pipeline's machine context; a simple job's (or a pipeline's before its machine is
   * stored) is its lifecycle's, `snapshot.l.context`. */
  context: unknown;
  input: unknown;
  output: Output | null;
  error: StoredError | null;
  /** The attempt running or last run (1-based; a retry waiting counts as its attempt); 0 while
   * the job has never been claimed (e.g. delayed, or cancelled before it ran). */
  attempts: number;
  maxAttempts: number;
  leaseRequeues: number;
  priority: string;
  progress: unknown;
  parentId: string | null;
  /** For a delayed job: when it becomes runnable (ms since epoch). */
  runAt: number | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  cancelRequested: boolean;
  /** Set by Client.get for a parent: its children (the first 100) and counts. */
  children?: { total: number; finished: number; jobs: { id: string; queue: string; status: JobStatus }[] };
  /**
   * The stored snapshot (`w` machine, `t` timers, `h` held events, as persisted) with `l`, the
   * lifecycle derived from this record's status, attempt and error (store/lifecycleView.ts).
   */
  snapshot: unknown;
}

export interface AuditEntry {
  at: number;
  type: string;
  [key: string]: unknown;
}

export interface ListQuery {
  queue: string;
  status?: JobStatus;
  machine?: string;
  parentId?: string;
  cursor?: string;
  limit?: number;
}

export interface CancelOutcome {
  /** `cancelled` at once, `requested` for a running job (its worker ends it), `finished` if too late. */
  result: 'cancelled' | 'requested' | 'finished';
  status: JobStatus;
  /** The job fanned out children: its subtree must be cancelled too. */
  hasChildren: boolean;
  queue: string;
}
