// ROLE WorkQueue (required): a queue's work, as the client puts it in and a supervisor's workers
// take it: enqueue, commit-and-claim, leases (heartbeat, reap), the wait for work, a job's inbox.
// Every call is atomic (one Lua script on Redis; one synchronous step in MemoryStore).
// Argument order, in every role: a call on a queue's work takes `queue` first; a call on one job
// takes the job's id first, then `queue`, the locator that finds it (types.ts lists the exceptions).

import type { NewJob, EnqueueResult } from '../newJob.js';
import type { ClaimRequest, CommitOp, CommitResult, LeaseState } from '../commitTypes.js';

/** One supervisor's blocking wait for work (WorkQueue.workWaiter, Ingress.ingressWaiter). */
export interface WorkWaiter {
  /** Blocks until work may be available on the queue, or the timeout passes. */
  wait(timeoutMs: number): Promise<void>;
  /** Cuts a wait in progress short and releases the connection; later waits return at once. */
  close(): void;
}

/**
 * One supervisor's wait for work on the queues it serves, on ONE blocking connection however
 * many queues (a connection per queue would multiply a fleet's connections by its queues).
 * Each queue's marker stays the source of truth: a signal is a marker taken, never a message
 * that can be missed, so a queue that got work while nobody waited is reported at the next wait.
 */
export interface QueuesWaiter {
  /**
   * Blocks until one of `queues` may have work, `interrupt()`, or the timeout; resolves with the
   * queues whose marker it took (empty: timed out or interrupted). A queue reported is no
   * longer signalled to anyone else: the caller MUST look at it (claim) or put it back.
   */
  wait(queues: readonly string[], timeoutMs: number): Promise<string[]>;
  /** Cuts the wait in progress short (the caller waits again with another set of queues). */
  interrupt(): void;
  /**
   * Sets `queue`'s marker again (a signal taken for a queue nobody waits on any more): the next
   * waiter to block on it, this one's or another supervisor's, takes it. No answer is awaited.
   */
  putBack(queue: string): void;
  /** Cuts a wait in progress short and releases the connection; later waits return at once. */
  close(): void;
}

export interface ReapResult {
  requeued: string[];
  failed: string[];
  /**
   * Ms until the next reap has work: the earliest running job's lease passes (0: one already
   * has, past this call's batch), or, for a caller the lock turned away, the lock lapses if that
   * is later. Absent when no job runs. The reaper sleeps no longer than this (LeaseKeeper), so a
   * dead worker's jobs are requeued when their lease ends, not a reaper interval later.
   */
  nextDueMs?: number;
}

export interface WorkQueue {
  /** Adds jobs atomically per queue; idempotency keys (and ids) dedupe. */
  enqueue(queue: string, jobs: NewJob[]): Promise<EnqueueResult[]>;
  /**
   * Applies fenced writes (THE FENCE: a write whose lease token is not the holder's is refused,
   * `written: false`), then claims up to `claim.max` due jobs: one atomic round trip. A malformed
   * commit is refused as a whole (BAD_COMMIT), writing nothing.
   */
  commit(queue: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult>;
  /** Extends every lease still held, in one call; says per lease held, lost or cancel. */
  heartbeat(queue: string, leases: { id: string; token: string }[], leaseMs: number): Promise<LeaseState[]>;
  /**
   * Requeues (or fails past the budget) jobs whose lease passed; trims retention indexes. One
   * reap per `lockMs` (default 100) runs per queue, whoever calls: the others return nothing
   * but `nextDueMs`. The lock lapses early when a lease passes sooner, for the reap that is due.
   */
  reap(queue: string, options: { maxLeaseRequeues: number; lockMs?: number }): Promise<ReapResult>;
  /**
   * A waiter for work on any set of queues, blocking on a connection of its own: each
   * supervisor has its own, so one's idle wait never holds up another's and one's stop never
   * cuts another's wait.
   */
  workWaiter(): QueuesWaiter;
  /** Events sent to job `id` of `queue`, from position `from` of its inbox on. */
  readInbox(id: string, queue: string, from: number): Promise<string[]>;
}
