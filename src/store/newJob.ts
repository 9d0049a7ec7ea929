// What a client hands the store to make a job (NewJob, already validated and serialized), what
// it gets back (EnqueueResult), and the priority bands a claim orders jobs by.

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
  /** Deduplication (docs/dedupe.md), checked by validateEnqueue.ts. */
  dedupe?: Dedupe;
  /** Its concurrency key (docs/flow-control.md): the claim holds it to the queue's perKey limit. */
  concurrencyKey?: string;
  parentId?: string;
  /**
   * A minimal record (`record: 'minimal'`, docs/concepts.md): no audit log and no stream entries
   * for its moves; deleted as it ends done, once its waiters have the result. Not for a child or
   * a job with a dedupe key or webhooks (buildNewJob leaves it unset for those).
   */
  minimal?: boolean;
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
  /**
   * A watcher (ResultWatch) that will wait for this job's end: the job is made with it registered,
   * in the same atomic step (as `watchJob` would register it, but with no moment between), so an
   * end before the caller's next call is delivered to it too. A job the enqueue keeps instead
   * (the id exists, a dedupe or idempotency key names another) is watched when it is unfinished:
   * EnqueueResult.watched says so.
   */
  watcher?: string;
}

/** How enqueues with the same key collapse into one job (docs/dedupe.md). */
export type DedupeMode = 'untilDone' | 'ttl' | 'debounce';

export interface Dedupe {
  /** 1-256 characters; names one job per queue (the queue's partition, on a partitioned queue). */
  key: string;
  /**
   * - `untilDone` (default): while the job made under the key is unfinished, the same key returns
   *   its id; once it ended (or after `ttlMs`, when given), a new job is made.
   * - `ttl`: one job per key per window of `ttlMs` from the first enqueue.
   * - `debounce`: the job waits `ttlMs`; each enqueue with the key before it starts replaces its
   *   input and starts the quiet period again, up to `maxDelayMs` after the first.
   */
  mode: DedupeMode;
  ttlMs?: number;
  maxDelayMs?: number;
  /**
   * Once the kept job started, one more job waits behind it with the latest input (each enqueue
   * replaces it), and runs when the started one ends: one running plus one pending.
   */
  keepLast?: boolean;
}

export interface EnqueueResult {
  id: string;
  /** False when the job exists already (the same id), or a dedupe key kept another job. */
  created: boolean;
  /**
   * True when a dedupe key (or an idempotency key, the `ttl` mode's alias) kept an existing job:
   * `id` is that job's, and it was told (a `deduplicated` event and audit entry naming the key).
   */
  deduplicated?: boolean;
  /**
   * True when the job came with a watcher (NewJob.watcher) and that watcher is registered on the
   * job answered: it was made with it, or it was kept unfinished. Absent for a kept job that had
   * finished (or whose record is gone): its end will not be delivered, read its record instead.
   */
  watched?: boolean;
}
