// The worker's side of the Store: what a claim hands it (ClaimedJob), the fenced writes it
// commits (CommitOp), and what a commit answers (CommitResult, LeaseState).

import type { JobStatus } from './jobStatus.js';

/** What a claim hands the worker: enough to run the job, nothing more. */
export interface ClaimedJob {
  id: string;
  token: string;
  machine: string | undefined;
  version: number;
  input: string | undefined;
  snapshot: string | undefined;
  attempt: number;
  maxAttempts: number;
  status: JobStatus;
  leaseRequeues: number;
  /** How many times its work asked to retry later (RetryLaterError) so far; a redrive resets it. */
  retryLaters: number;
  parentId: string | undefined;
  /** The parent's queue when it is not this one. */
  parentQueue: string | undefined;
  options: string | undefined;
  /** How many of the job's inbox events its snapshot has already taken in (pipelines). */
  inbox: number;
  /** Whether any event was ever sent to the job (else its inbox need not be read). */
  hasInbox: boolean;
  /**
   * For a child: its parent's state when the claim was applied (`cancelled` includes a cancel
   * requested); undefined when the store did not check (the worker then asks).
   */
  parentState?: 'live' | 'cancelled' | 'missing';
  /**
   * THE EARLY LEASE (ClaimRequest.hold): claimed before its timer was due, a parked job's timer
   * due by this time (store clock, ms: the claim's time plus the lead). Its run waits for a
   * timer due by then in memory rather than parking again (pipeline/heldRun.ts). Absent: a
   * claim of a job due or queued.
   */
  holdUntil?: number;
  /**
   * WITHHELD INPUT (ClaimRequest.maxInputBytes): the stored input's size in bytes when it is over
   * that limit; the input itself was not sent (`input` is undefined) and the job is not to run.
   */
  inputBytes?: number;
}

/**
 * The machine version an op's snapshot is in, when it is not the record's: a pipeline job
 * migrated to a newer version. The record's version MUST follow its snapshot (`v` set in the
 * same write), or every later claim would migrate a snapshot that is already the new version.
 */
interface SnapshotVersion {
  version?: number;
}

/**
 * One fenced write by the worker holding the lease. Every kind checks the token first: a
 * worker whose lease has passed gets `lost` back and MUST stop working on that job.
 */
export type CommitOp =
  | ({
      kind: 'checkpoint';
      id: string;
      token: string;
      status: JobStatus;
      snapshot?: string;
      state?: string;
      progress?: string;
      inboxConsumed?: number;
      log: string[];
    } & SnapshotVersion)
  | ({
      kind: 'done';
      id: string;
      token: string;
      output: string;
      snapshot: string;
      state?: string;
      log: string[];
    } & SnapshotVersion)
  | ({
      kind: 'fail';
      id: string;
      token: string;
      error: string;
      snapshot?: string;
      state?: string;
      /** The snapshot a redrive of this dead letter resumes from (pipelines); none: afresh. */
      resume?: string;
      log: string[];
    } & SnapshotVersion)
  | ({
      kind: 'retry';
      id: string;
      token: string;
      error: string;
      delayMs: number;
      attempt: number;
      snapshot?: string;
      /** A retry-later: the job's retry-laters so far, this one included (absent: kept). */
      retryLaters?: number;
      /**
       * A rate limit hit (RateLimitedError): the queue holds back its starts for this long (ms,
       * from the store's clock), in the same write: its GCRA state is pushed forward
       * (docs/flow-control.md). Absent: a plain retry.
       */
      holdMs?: number;
      log: string[];
    } & SnapshotVersion)
  | ({
      kind: 'cancelled';
      id: string;
      token: string;
      snapshot?: string;
      state?: string;
      log: string[];
    } & SnapshotVersion)
  | { kind: 'requeue'; id: string; token: string; log: string[] }
  | ({
      kind: 'park';
      id: string;
      token: string;
      wakeAt: number | null;
      snapshot: string;
      state?: string;
      inboxConsumed?: number;
      log: string[];
    } & SnapshotVersion)
  | { kind: 'broken'; id: string; token: string; error: string; log: string[] };

export interface ClaimRequest {
  workerId: string;
  max: number;
  leaseMs: number;
  /** Machines whose first active state is `loading` (they define a load phase). */
  loadMachines: readonly string[];
  /**
   * THE EARLY LEASE: up to `hold` parked jobs whose timer is due within `leadMs` more, claimed
   * before it is due (besides the `max` due or queued ones): only a parked job's timer, only a
   * job no gate of the queue applies to, only on a queue with no total and no throttle (the
   * store's claim, lua/include/lcClaimEarly.lua, and MemoryStore's claimEarly). Absent or 0:
   * none.
   */
  leadMs?: number;
  hold?: number;
  /**
   * WITHHELD INPUT: a job whose stored input is over this many bytes is claimed without it, its
   * size in `ClaimedJob.inputBytes` (the worker sets it aside, runClaimedJob.ts): an input no
   * worker will run never crosses the wire, where a claim of a 20 MiB input once took longer
   * than half a lease on a loaded host, so every claim of it was handed back (CommitPump.ts,
   * STALE CLAIM) and claimed again without end. Absent or 0: no limit (a store whose claim
   * sends nothing over a wire, MemoryStore, may ignore it).
   */
  maxInputBytes?: number;
}

export interface CommitResult {
  /** Per op, in order: true when written, false when the lease was lost. */
  written: boolean[];
  claimed: ClaimedJob[];
  /** When nothing more could be claimed: the earliest due time waiting in `delayed` (ms), if any. */
  nextDueAt: number | null;
  /** Redis's clock when the call ran (ms): workers keep their durable times on it. */
  redisNow: number;
  /**
   * Durability 'replicated' only: the writes were applied, but fewer replicas than asked
   * acknowledged them within the WAIT timeout (a failover now could lose them).
   */
  unreplicated?: { acked: number; wanted: number };
}

export type LeaseState = 'held' | 'lost' | 'cancel';
