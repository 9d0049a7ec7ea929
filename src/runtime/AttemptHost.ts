// What a runner (runSimpleJob, runPipeline, runCompiledPipeline) may use of the supervisor that
// claimed its job, and nothing more: the queue, Redis's clock, a logger, the store reads a run
// makes, and the child-job operations of a fan-out. Writes go through the job itself
// (ActiveJob.write, fenced by its lease token). Each definition carries its own runner
// (`runAttempt`), so the supervisor never imports a runtime, and src/supervisor and
// src/pipeline do not import each other.

import type { Logger } from 'pino';
import type { FanState, Priority } from '../store/types.js';
import type { ActiveJob } from './ActiveJob.js';

/** One child job of a fan-out. */
export interface ChildJob {
  machine: string;
  input?: unknown;
  /** The child's queue; default: its parent's. */
  queue?: string;
  priority?: Priority;
  /**
   * The child's concurrency key (docs/flow-control.md). On a partitioned queue a child goes to
   * the partition its id names, not its key's: the key's perKey is then per partition.
   */
  concurrencyKey?: string;
}

// Members are functions, not methods: the supervisor builds one plain object, and a runner (or a
// test's fault) may pass them around unbound.
export interface AttemptHost {
  readonly queue: string;
  readonly log: Logger;
  /** Redis time now (ms), never ahead of it: what stored times (due times, wake times) are read against. */
  now: () => number;
  /**
   * Redis time now (ms), never behind it: what a timer's due time is stamped from, so that it is
   * due no sooner than its delay from now wherever it is restored (StoreClock.ts NEVER EARLY).
   */
  latest: () => number;
  /** Events sent to a job of this queue, from position `from` of its inbox on. */
  readInbox: (jobId: string, from: number) => Promise<string[]>;
  /**
   * Opens a parent's fan-out record once, and returns what it holds so far. Fenced by the
   * parent's lease `token`: LeaseLostError (LEASE_LOST) once the parent's lease has passed.
   */
  fanOpen: (
    parentId: string,
    token: string,
    group: string,
    total: number,
    policy: 'failFast' | 'collect',
  ) => Promise<FanState>;
  /**
   * Enqueues a parent's children for one fan-out group (idempotent: their ids are deterministic),
   * fenced by the parent's lease `token` (see NewJob.parentToken). `revive`: indexes of children
   * to make anew if they ended failed or cancelled (a redrive). `trace`: the parent attempt's
   * trace context (ActiveJob.traceContext), for the publish spans.
   */
  enqueueChildren: (
    parentId: string,
    token: string,
    group: string,
    jobs: readonly ChildJob[],
    revive?: ReadonlySet<number>,
    trace?: unknown,
  ) => Promise<void>;
  /** Cancels a job and its whole subtree. */
  cancelTree: (id: string, queue: string) => Promise<void>;
}

/** The store's time as a run reads it: due times compared with `now`, stamped from `latest`. */
export type StoreTime = Pick<AttemptHost, 'now' | 'latest'>;

/** The wall clock as both (a run made outside a supervisor, as in tests). */
export const WALL_TIME: StoreTime = { now: Date.now, latest: Date.now };

/**
 * Runs one attempt of a claimed job to its end: every path MUST end with a fenced write of the
 * job (done, fail, retry, park, cancelled, requeue), unless its lease was lost. `timeoutMs` is
 * the attempt's limit (the definition's, or the job's own).
 */
export type AttemptRunner = (
  job: ActiveJob,
  input: unknown,
  timeoutMs: number,
  host: AttemptHost,
) => Promise<void>;
