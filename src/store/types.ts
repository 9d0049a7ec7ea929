// The Store interface: every durable operation the runtime and the client need, each one atomic.
// RedisStore is the production backend; MemoryStore (src/store/memory/) the embedded one. Both
// pass the same store conformance suite (test/store/conformance/) and run side by side on seeded
// random sequences of calls with every answer and record compared (test/store/differential.test.ts);
// the pipeline behaviour suite runs on both; test/core/ and test/children/ run against RedisStore.

import type { StoredError } from '../errors.js';
import type { HookStore } from './HookStore.js';

// In files of their own (jobStatus.ts, queueEvent.ts) so that commitTypes.ts and HookStore.ts,
// which this file names, can name them without importing this file back.
export { FINISHED, type JobStatus } from './jobStatus.js';
export type { QueueEvent } from './queueEvent.js';
import type { JobStatus } from './jobStatus.js';
import type { QueueEvent } from './queueEvent.js';

/** The indexes `counts` reports, in display order. */
export const COUNTED = [
  'queued',
  'delayed',
  'active',
  'waiting',
  'done',
  'failed',
  'cancelled',
  'dead',
  'broken',
] as const;
export type QueueCounts = Record<(typeof COUNTED)[number], number>;

export type Priority = 'critical' | 'high' | 'normal' | 'low';
/** Priority bands: a lower band is always claimed first. */
export const PRIORITY_BAND: Readonly<Record<Priority, number>> = { critical: 0, high: 1, normal: 2, low: 3 };
export const BAND_PRIORITY_NAMES: readonly Priority[] = ['critical', 'high', 'normal', 'low'];

/** A job as handed to the store by the client, already validated and serialized. */
export interface NewJob {
  id: string;
  machine: string;
  version: number;
  /** JSON text of the input. */
  input: string;
  band: number;
  delayMs: number;
  maxAttempts: number;
  idempotencyKey?: string;
  parentId?: string;
  /** JSON text of per-job options (timeoutMs, webhook), or ''. */
  options?: string;
  /**
   * The options name webhooks: the store lists the job as hooked (before creating it), so a
   * webhook dispatcher follows its events (src/webhooks/WebhookDispatcher.ts).
   */
  hooked?: boolean;
  /** For a child job: its parent's queue (when not this one), fan-out group and index. */
  parentQueue?: string;
  group?: string;
  index?: number;
  /**
   * For a child: its parent's lease token (the fan-out is the parent's run writing). A child on
   * its parent's queue is made only while the parent holds it (THE FENCE: LEASE_LOST, nothing
   * made); one on another queue (another hash slot) is fenced by the fenced fanOpen its parent's
   * run made just before, and at its claim (a child of a finished or missing parent ends
   * cancelled without running).
   */
  parentToken?: string;
  /**
   * A child of a redriven parent's fan-out (FanState.revive): an existing child that ended
   * failed or cancelled is made anew under its id instead of being left as it is.
   */
  revive?: boolean;
}

/** What one relay of a queue's outbox did. */
export interface RelayResult {
  /** Entries delivered to their parent's fan-out record (a repeat counts, and changes nothing). */
  relayed: number;
  /** Entries that could not be delivered and were taken out, with why (the caller logs them). */
  dropped: { entry: string; why: string }[];
  /** The call took a full batch: more entries may wait. */
  more: boolean;
}

/** A parent's fan-out record: how many children, how many finished, and their outcomes. */
export interface FanState {
  total: number;
  policy: 'failFast' | 'collect';
  finished: number;
  failed: number;
  /** Outcome JSON by child index, for the children finished so far. */
  results: Map<number, string>;
  /**
   * The parent was redriven from a dead letter: the outcomes of children that did not end done
   * were dropped, and those children are to be made anew (NewJob.revive).
   */
  revive: boolean;
}

export interface EnqueueResult {
  id: string;
  /** False when an idempotency key matched an existing job: `id` is that job's. */
  created: boolean;
}

// What a worker's commit carries and gets back: commitTypes.ts.
export type { ClaimedJob, CommitOp, ClaimRequest, CommitResult, LeaseState } from './commitTypes.js';
import type { CommitOp, ClaimRequest, CommitResult, LeaseState } from './commitTypes.js';
import type { MachineGraph } from './chartModel.js';

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

export interface DeadLetter {
  id: string;
  queue: string;
  machine: string;
  input: unknown;
  error: StoredError | null;
  attempts: number;
  failedAt: number;
}

/** A dead-lettered job's record as the dead-letter list shows it (both stores). */
export function deadLetterOf(r: JobRecord, queue: string): DeadLetter {
  return {
    id: r.id,
    queue,
    machine: r.machine,
    input: r.input,
    error: r.error,
    attempts: r.attempts,
    failedAt: r.finishedAt ?? 0,
  };
}

export interface BrokenEntry {
  id: string;
  queue: string;
  reason: string;
  at: number;
  /** For an ingress entry that could not be made a job: its text (the first 64 KiB). */
  raw?: string;
}

/** What becomes of one ingress entry (docs/ingress.md): a job, or the broken set with a reason. */
export type IngressDecision =
  | { job: NewJob; ownId: false }
  | {
      job: NewJob;
      /**
       * The id is the producer's: an existing job of that id and machine consumes the entry; one
       * of another machine sends it to the broken set under `spareId` (ID_CONFLICT).
       */
      ownId: true;
      spareId: string;
    }
  | { id: string; reason: string };

export interface IngressDrained {
  made: number;
  broken: number;
  /** Entries whose producer-given id named an existing job of their machine (consumed, nothing made). */
  existing: number;
  /** Other supervisors kept taking the entries first; nothing was done this time. */
  contended?: boolean;
}

export interface CancelOutcome {
  /** `cancelled` at once, `requested` for a running job (its worker ends it), `finished` if too late. */
  result: 'cancelled' | 'requested' | 'finished';
  status: JobStatus;
  /** The job fanned out children: its subtree must be cancelled too. */
  hasChildren: boolean;
  queue: string;
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

export interface MachineInfo {
  name: string;
  versions: number[];
  hasLoad: boolean;
  /** The machine's definition as JSON, for drawing its chart. */
  definition?: unknown;
  /** The latest version's retry.maxAttempts, so clients without the definitions enqueue with it. */
  maxAttempts?: number;
  /**
   * The latest version declares an input schema (defineJob's `input`): a client without the
   * definitions cannot check an input against it (the CLI says so).
   */
  inputSchema?: boolean;
  /**
   * Each pipeline version's fingerprint (by version): the definition its stored jobs were
   * written by. The first one registered for a version stays unless replaced on purpose.
   */
  fingerprints?: Record<string, string>;
  /**
   * Each pipeline version's chart model (by version; store/chartModel.ts), so that a process
   * without the machine's code (the CLI, the dashboard) can draw it. Merged per version like
   * `fingerprints`. Simple jobs have none: they all draw the shared lifecycle.
   */
  graphs?: Record<string, MachineGraph>;
}

/** One supervisor's blocking wait for work (Store.workWaiter). */
export interface WorkWaiter {
  /** Blocks until work may be available on the queue, or the timeout passes. */
  wait(timeoutMs: number): Promise<void>;
  /** Cuts a wait in progress short and releases the connection; later waits return at once. */
  close(): void;
}

/** The store's worker connection went unreachable, or came back (see `Store.watchConnection`). */
export interface ConnectionChange {
  up: boolean;
  /** The server, `host:port`. */
  address: string;
  /** When unreachable: the cause the driver gave, if any. */
  error?: unknown;
  /** When back: how long it was unreachable. */
  downMs?: number;
}

/**
 * Every durable operation. Client calls (enqueue, reads, cancel, send, watchJob, readResults,
 * dead-letter handling, machines, queues) reject with REDIS_UNAVAILABLE when the backend does
 * not answer within its bound; a supervisor's calls (commit, heartbeat, reap, waitForWork,
 * fanOpen, readInbox, relayOutbox, jobStatus, registerMachines) wait for it without limit.
 */
export interface Store {
  readonly prefix: string;
  /** Which backend this is, for what reports on it (GET /healthz says what it checked). */
  readonly kind: 'redis' | 'memory';
  /** How long finished (done, cancelled) records are kept (ms): a supervisor checks its floor. */
  readonly finishedTtlMs: number;
  /** Why the store cannot take writes now, if it knows (GET /healthz answers 503 with it). */
  unhealthy?(): Error | undefined;
  /** Adds jobs atomically per queue; idempotency keys dedupe. */
  enqueue(queue: string, jobs: NewJob[]): Promise<EnqueueResult[]>;
  /** Applies fenced writes, then claims up to `claim.max` due jobs: one round trip. */
  commit(queue: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult>;
  /**
   * Opens a parent's fan-out record once, and returns what it holds so far. With `token` (the
   * parent's lease token: a worker's call), fenced: refused with LEASE_LOST unless the parent
   * holds it. Nothing is made for a parent that does not exist.
   */
  fanOpen(
    queue: string,
    parentId: string,
    group: string,
    total: number,
    policy: 'failFast' | 'collect',
    token?: string,
  ): Promise<FanState>;
  /** The fan-out groups of a parent: name, child count, children finished. */
  fanGroups(queue: string, parentId: string): Promise<{ group: string; total: number; finished: number }[]>;
  /** Ids of a parent's children that live on `queue`, in fan-out order. */
  childIds(queue: string, parentId: string, offset: number, limit: number): Promise<string[]>;
  /**
   * Delivers up to a batch of finished children to parents on other queues (the queue's outbox
   * entries carry each child's outcome, so a child's record deleted by retention loses nothing).
   */
  relayOutbox(queue: string): Promise<RelayResult>;
  /** Redis's clock (ms): what stored times (run-at, expiries) are compared with. */
  now(): Promise<number>;
  /** Events sent to a job, from position `from` of its inbox on. */
  readInbox(queue: string, id: string, from: number): Promise<string[]>;
  /**
   * Appends an event to a job's inbox and wakes the job (parked) or its worker (running), once
   * per `eventId`: a resent send (a reply lost across a
   * reconnect) is not delivered twice. Resolves false when that id was delivered already.
   */
  send(queue: string, id: string, event: string, eventType: string, eventId: string): Promise<boolean>;
  /** Extends every lease still held, in one call. */
  heartbeat(queue: string, leases: { id: string; token: string }[], leaseMs: number): Promise<LeaseState[]>;
  /**
   * Requeues (or fails past the budget) jobs whose lease passed; trims retention indexes. One
   * reap per `lockMs` (default 100) runs per queue, whoever calls: the others return nothing
   * but `nextDueMs`. The lock lapses early when a lease passes sooner, for the reap that is due.
   */
  reap(queue: string, options: { maxLeaseRequeues: number; lockMs?: number }): Promise<ReapResult>;
  /**
   * A waiter for work on one queue, blocking on a connection of its own: each supervisor has its
   * own, so one's idle wait never holds up another's and one's stop never cuts another's wait.
   */
  workWaiter(queue: string): WorkWaiter;
  /**
   * INGRESS (docs/ingress.md), for backends foreign producers can write to (a MemoryStore has
   * none and leaves both out). Moves up to `max` of the oldest entries of the queue's ingress
   * list into jobs, each as `decide` says, atomically: an entry is popped in the same step that
   * makes its job or sets it aside as broken.
   */
  drainIngress?(
    queue: string,
    max: number,
    /** A Promise when the machine's input schema validates asynchronously. */
    decide: (raw: Buffer) => IngressDecision | Promise<IngressDecision>,
  ): Promise<IngressDrained>;
  /** A waiter that returns when the queue's ingress list holds entries (or the timeout passes). */
  ingressWaiter?(queue: string): WorkWaiter;
  /**
   * WEBHOOKS: the dispatcher's durable state for one queue (src/store/HookStore.ts), for
   * backends that keep one; a Supervisor delivers no webhooks on a store without it.
   */
  webhookStore?(queue: string): HookStore;
  /**
   * Delivers control messages (cancel, event, fanin) addressed to one worker, if the backend can
   * push them; resolves once listening, with the function that stops it.
   */
  subscribeControl?(
    queue: string,
    workerId: string,
    onMessage: (message: string) => void,
  ): Promise<() => Promise<void>>;
  /**
   * Reports each change of the supervisors' connection between reachable and unreachable (at
   * once when it is unreachable now), for the log; returns an unsubscribe.
   */
  watchConnection?(listener: (change: ConnectionChange) => void): () => void;

  getJob(id: string, queue?: string): Promise<JobRecord | null>;
  /** Just a job's status and whether a cancel was asked for (cheap: two fields). */
  jobStatus(id: string, queue: string): Promise<{ status: JobStatus; cancelRequested: boolean } | null>;
  getLog(id: string, queue?: string): Promise<AuditEntry[]>;
  list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }>;
  cancel(id: string, queue?: string, reason?: string): Promise<CancelOutcome>;
  deadLetters(queue: string, limit: number): Promise<DeadLetter[]>;
  retryDeadLetter(id: string, queue?: string): Promise<void>;
  purgeDeadLetters(queue: string): Promise<number>;
  /** Purges one dead-lettered or broken job (it then expires like a finished job); false when it is neither. */
  purgeDeadLetter(id: string, queue?: string): Promise<boolean>;
  broken(queue: string, limit: number): Promise<BrokenEntry[]>;

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

  /** Reads queue events after `cursor` (exclusive), blocking up to `blockMs` for the first one. */
  readEvents(queue: string, cursor: string, blockMs: number, count?: number): Promise<QueueEvent[]>;
  /** The cursor of the newest event: reading from it yields only what comes after. */
  lastEventCursor(queue: string): Promise<string>;

  /**
   * Publishes machines in the registry (merging versions with what is there; a version's
   * fingerprint already there is kept unless `replaceFingerprints`). Idempotent:
   * supervisors call it again on a reconnect and periodically, since a Redis that lost its data
   * (FLUSHALL, a restart without AOF) loses the registry with it.
   */
  registerMachines(machines: MachineInfo[], options?: { replaceFingerprints?: boolean }): Promise<void>;
  /**
   * How many jobs of `machine` at `version` are not finished (queued, delayed, running or
   * waiting), in every queue of the registry. Reads every such job's record: for a decision
   * made rarely (a supervisor refusing to start), not for a hot path.
   */
  countUnfinished(machine: string, version: number): Promise<number>;
  /** Adds a queue to the set `queues()` lists (idempotent, like registerMachines). */
  registerQueue(queue: string): Promise<void>;
  /**
   * Calls `listener` each time the store's connection is ready again after it was lost (not on
   * the first connect). Returns the unsubscribe function.
   */
  onReconnect?(listener: () => void): () => void;
  /**
   * The server's key-eviction policy, if the backend can tell ('noeviction' is the only one
   * under which no job is lost to eviction), or null when it cannot be read.
   */
  evictionPolicy?(): Promise<string | null>;
  /**
   * Whether the server keeps an append-only file (without one a restart loses every write since
   * the last snapshot), or null when it cannot be read.
   */
  appendOnly?(): Promise<boolean | null>;
  /**
   * Stamps a fresh store with the code's data format and refuses one of another version
   * (StoreFormatError: STORE_FORMAT_NEWER / STORE_FORMAT_OLDER; see storeFormat.ts). A
   * supervisor calls it at start; cheap (one read), and a no-op after it passed once. Absent:
   * the backend checks its format where it loads its data (MemoryStore's data file).
   */
  checkFormat?(): Promise<void>;
  machines(): Promise<MachineInfo[]>;
  queues(): Promise<string[]>;
  /** How many jobs each of the queue's indexes holds. */
  counts(queue: string): Promise<QueueCounts>;
  /** Takes a queue off the set `queues()` lists (Client.forgetQueue checks it is empty first). */
  forgetQueue(queue: string): Promise<void>;
  close(): Promise<void>;
}
