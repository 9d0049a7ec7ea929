// The supervisor: claims jobs from one queue, runs them, and writes their states back.
//
// Modes of the pump (the one loop that talks to the store for claims and writes):
//   CLAIMING  free slots and not stopping: one `commit` call writes every queued op and claims
//             up to the free slot count in the same round trip.
//   BUSY      no free slot: the pump sleeps until a job queues a write, then flushes the batch
//             of writes that piled up meanwhile (one call for all of them).
//   IDLE      free slots but nothing due: blocks on the queue's marker (no polling) until new
//             work, the next delayed job's due time, or a write to flush.
//   STOPPING  no more claims; writes still flush; in-flight jobs get the grace period, then are
//             aborted with 'shutdown' and requeued at once (not after lease expiry).
//
// Up to MAX_IN_FLIGHT (2) commits are in flight at once, so the worker runs the jobs one commit
// claimed while Redis applies the next commit (double buffering), and one commit claims at most
// half the slots (rounded up) so that two claims alternate. Both go over the same connection and
// Redis applies them in the order sent, so a job's own writes stay in order. A slot is free as
// soon as its job queued the write that ends its run (done, fail, retry, park, ...): the
// claim that fills it is applied after that write, in the same or a later call. Claims never
// exceed the free slots: no job is taken that this worker could not start at once.
//
// THE RULE: a job's lease MUST be held for every write. Writes are fenced in Redis by the
// lease token; a job whose lease is reported lost is aborted and never written again.

import { hostname } from 'node:os';
import { monotonicFactory } from 'ulid';
import { pino, type Logger } from 'pino';
import type { CommitOp, CommitResult, Store, ClaimedJob } from '../store/types.js';
import { Registry, type AnyDefinition } from '../runtime/registry.js';
import { ActiveJob } from './ActiveJob.js';
import { runClaimedJob } from './runClaimedJob.js';
import { MachinistError } from '../errors.js';
import { assertQueueName } from '../store/keys.js';
import { Client } from '../client/Client.js';
import type { FanOutJob } from '../pipeline/fanOut.js';

export interface SupervisorOptions {
  store: Store;
  jobs: readonly AnyDefinition[];
  queue?: string;
  /** Jobs run at once. Default 10. */
  concurrency?: number;
  /** Lease length; a job whose lease is not extended in time is requeued. Default 30 s. */
  leaseMs?: number;
  /** How often leases are extended. Default 10 s (must be below leaseMs). */
  heartbeatMs?: number;
  /** How often expired leases are looked for. Default 5 s. */
  reaperIntervalMs?: number;
  /** Lease requeues a job may have before it fails with LEASE_EXPIRED. Default 5. */
  maxLeaseRequeues?: number;
  /** Longest idle block before looking again. Default 5 s. */
  idleWaitMs?: number;
  workerId?: string;
  /**
   * Start even when Redis may evict keys (any maxmemory-policy but noeviction). An evicted job
   * is a lost job, so by default start() refuses with EVICTING_REDIS. Default false.
   */
  allowEviction?: boolean;
  logger?: Logger;
}

export interface StopResult {
  /** True when jobs were still running at the end of the grace period and were requeued. */
  forced: boolean;
  requeued: number;
}

interface PendingWrite {
  op: CommitOp;
  /** Order in which writes were queued: a job's later write supersedes its earlier checkpoint. */
  seq: number;
  /** Sent alone, to find which write of a failed batch Redis refuses. */
  isolate?: boolean;
  resolve: (written: boolean) => void;
  reject: (err: unknown) => void;
}

const ulid = monotonicFactory();

/** A reply from Redis refusing the script (as opposed to a connection that failed). */
function isScriptError(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'ReplyError';
}
const MAX_IN_FLIGHT = 2;
/** How often the deadline sweep looks for attempts past their timeout. */
const DEADLINE_SWEEP_MS = 20;

export class Supervisor {
  readonly queue: string;
  readonly workerId: string;
  readonly store: Store;
  readonly registry: Registry;
  readonly log: Logger;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly reaperIntervalMs: number;
  readonly maxLeaseRequeues: number;
  readonly idleWaitMs: number;
  private readonly allowEviction: boolean;

  private readonly running = new Map<string, ActiveJob>();
  /** Running jobs whose parent lives on another queue: their endings are relayed from the outbox. */
  private readonly crossQueueChildren = new Set<string>();
  private pending: PendingWrite[] = [];
  private writeSeq = 0;
  /** The seq of each job's last write sent to Redis. */
  private readonly lastSent = new Map<string, number>();
  /** Commits sent and not yet answered, and how many jobs they may claim between them. */
  private inFlightCommits = 0;
  private reserved = 0;
  /** Running jobs that queued the write ending their run (their slot is free already). */
  private releasing = 0;
  /** The last claim found the queue empty: wait for work before claiming again. */
  private starved = false;
  private wake: (() => void) | undefined;
  private waitInFlight: Promise<void> | undefined;
  /** Set when a blocking wait returned (work was signalled) since the last claim began. */
  private signalled = false;
  private pump: Promise<void> | undefined;
  private stopping = false;
  private started = false;
  private timers: NodeJS.Timeout[] = [];
  private nextDueAt: number | null = null;
  /**
   * Redis time minus this worker's clock (ms), from the last commit. Durable times (timers,
   * wake-ups) are kept on Redis's clock, never a worker's: a skewed worker neither wakes a
   * parked job early nor late.
   */
  clockOffset = 0;
  private readonly loadMachines: string[];
  /** Enqueues child jobs and walks subtrees to cancel them (names checked against the registry). */
  private readonly client: Client;
  private drained: (() => void) | undefined;

  constructor(options: SupervisorOptions) {
    if (!options?.store) throw new TypeError('Supervisor: store is required');
    this.store = options.store;
    this.registry = new Registry(options.jobs ?? []);
    this.queue = options.queue ?? 'default';
    assertQueueName(this.queue);
    this.concurrency = options.concurrency ?? 10;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.heartbeatMs = options.heartbeatMs ?? 10_000;
    this.reaperIntervalMs = options.reaperIntervalMs ?? 5_000;
    this.maxLeaseRequeues = options.maxLeaseRequeues ?? 5;
    this.idleWaitMs = options.idleWaitMs ?? 5_000;
    this.allowEviction = options.allowEviction ?? false;
    for (const [k, v] of Object.entries({
      concurrency: this.concurrency,
      leaseMs: this.leaseMs,
      heartbeatMs: this.heartbeatMs,
      reaperIntervalMs: this.reaperIntervalMs,
      idleWaitMs: this.idleWaitMs,
    })) {
      if (!Number.isFinite(v) || v <= 0)
        throw new TypeError(`Supervisor: ${k} must be a number > 0 (got ${v})`);
    }
    if (!Number.isInteger(this.concurrency))
      throw new TypeError('Supervisor: concurrency must be an integer');
    if (this.heartbeatMs >= this.leaseMs)
      throw new TypeError('Supervisor: heartbeatMs must be below leaseMs');
    this.workerId = options.workerId ?? `${hostname()}-${process.pid}-${ulid().slice(-6)}`;
    this.log = options.logger ?? pino({ name: 'machinist', level: process.env.MACHINIST_LOG ?? 'warn' });
    this.loadMachines = this.registry.loadMachines();
    this.client = new Client({ store: this.store, queue: this.queue });
  }

  /** Enqueues a parent's children for one fan-out group (idempotent: deterministic ids). */
  enqueueChildren(parentId: string, group: string, jobs: readonly FanOutJob[]): Promise<void> {
    return this.client.enqueueChildren(parentId, this.queue, group, jobs);
  }

  /** Cancels a job and its whole subtree. */
  async cancelTree(id: string, queue: string): Promise<void> {
    await this.client.cancel(id, { queue });
  }

  get inFlight(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('Supervisor: already started');
    const policy = (await this.store.evictionPolicy?.()) ?? null;
    if (policy === null) this.log.warn('cannot read Redis maxmemory-policy; make sure it is noeviction');
    else if (policy !== 'noeviction' && !this.allowEviction) {
      throw new MachinistError(
        'EVICTING_REDIS',
        `Redis maxmemory-policy is '${policy}': it may evict job records, and an evicted job is lost. ` +
          "Set it to 'noeviction' (or pass allowEviction: true to accept the risk).",
        { queue: this.queue },
      );
    }
    this.started = true;
    await this.store.registerMachines(this.registry.info());
    const sub = (this.store as { subscribeControl?: Store['subscribeControl'] }).subscribeControl;
    if (sub) await sub.call(this.store, this.queue, this.workerId, (m: string) => this.onControl(m));
    this.timers.push(setInterval(() => void this.heartbeat(), this.heartbeatMs));
    this.timers.push(setInterval(() => void this.reap(), this.reaperIntervalMs));
    this.timers.push(setInterval(() => this.sweepDeadlines(), DEADLINE_SWEEP_MS));
    for (const t of this.timers) t.unref();
    this.pump = this.runPump();
    this.log.info({ queue: this.queue, workerId: this.workerId }, 'supervisor started');
  }

  /**
   * Stops claiming, lets running jobs finish for `graceMs`, then requeues the rest at once.
   */
  async stop(options: { graceMs?: number } = {}): Promise<StopResult> {
    const graceMs = options.graceMs ?? 30_000;
    if (!this.started) return { forced: false, requeued: 0 };
    this.stopping = true;
    this.store.interruptWait();
    this.kick();
    let forced = false;
    let requeued = 0;
    if (this.running.size > 0) {
      const drained = new Promise<void>((r) => (this.drained = r));
      const grace = new Promise<'grace'>((r) => setTimeout(() => r('grace'), graceMs).unref());
      if ((await Promise.race([drained, grace])) === 'grace' && this.running.size > 0) {
        forced = true;
        requeued = this.running.size;
        for (const job of this.running.values()) job.abort('shutdown', 'supervisor is shutting down');
        await Promise.race([drained, new Promise((r) => setTimeout(r, 5_000).unref())]);
      }
    }
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.kick();
    await this.pump;
    this.started = false;
    this.log.info({ forced, requeued }, 'supervisor stopped');
    return { forced, requeued };
  }

  /** Queues a fenced write; the pump sends it with the next batch. */
  write(op: CommitOp, job?: ActiveJob): Promise<boolean> {
    if (job && !job.released && op.kind !== 'checkpoint' && this.running.get(job.id) === job) {
      job.released = true;
      this.releasing++;
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ op, seq: ++this.writeSeq, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Aborts attempts past their deadline (one sweep for all jobs instead of a timer per job). */
  private sweepDeadlines(): void {
    if (this.running.size === 0) return;
    const now = Date.now();
    for (const job of this.running.values()) {
      if (job.deadline !== 0 && job.deadline <= now) {
        job.deadline = 0;
        job.abort('timeout', `attempt timed out after ${job.timeoutMs} ms`);
      }
    }
  }

  /** Slots a claim may fill now. */
  private freeSlots(): number {
    if (this.stopping) return 0;
    return this.concurrency - (this.running.size - this.releasing) - this.reserved;
  }

  private async runPump(): Promise<void> {
    const claimCap = Math.max(1, Math.ceil(this.concurrency / MAX_IN_FLIGHT));
    for (;;) {
      if (this.stopping && this.running.size === 0 && this.pending.length === 0 && this.inFlightCommits === 0)
        return;
      const canClaim = !this.starved && this.freeSlots() > 0;
      if (this.inFlightCommits >= MAX_IN_FLIGHT || (this.pending.length === 0 && !canClaim)) {
        if (this.inFlightCommits === 0 && this.pending.length === 0 && this.starved && this.freeSlots() > 0) {
          await this.idle();
          this.starved = false;
        } else await new Promise<void>((r) => (this.wake = r));
        continue;
      }
      // Let writes of the same tick join this batch.
      await new Promise((r) => setImmediate(r));
      if (this.inFlightCommits >= MAX_IN_FLIGHT) continue;
      let batch = this.pending;
      this.pending = [];
      if (batch[0]?.isolate) {
        // Finding the write a script error came from: one suspect per commit.
        this.pending = batch.slice(1);
        batch = batch.slice(0, 1);
        batch[0]!.isolate = false;
      }
      const want = this.starved ? 0 : Math.max(0, Math.min(claimCap, this.freeSlots()));
      if (batch.length === 0 && want === 0) continue;
      if (want > 0) this.signalled = false;
      this.inFlightCommits++;
      this.reserved += want;
      for (const p of batch) this.lastSent.set(p.op.id, p.seq);
      const sentAt = Date.now();
      void this.store
        .commit(
          this.queue,
          batch.map((p) => p.op),
          want > 0
            ? { workerId: this.workerId, max: want, leaseMs: this.leaseMs, loadMachines: this.loadMachines }
            : undefined,
        )
        .then(
          (res) => {
            this.clockOffset = res.redisNow - Math.round((sentAt + Date.now()) / 2);
            this.inFlightCommits--;
            this.reserved -= want;
            this.committed(batch, want, res);
            this.kick();
          },
          async (err: unknown) => {
            this.log.error({ err }, 'commit failed; retrying');
            await new Promise((r) => setTimeout(r, 200));
            this.inFlightCommits--;
            this.reserved -= want;
            this.requeueFailedBatch(batch, err);
            this.kick();
          },
        );
    }
  }

  /**
   * A commit that failed. Redis unreachable: its writes go again, first in line (leases cover the
   * jobs meanwhile) — except checkpoints a later write of the same job has already superseded,
   * which MUST NOT land after it (the stored snapshot and inbox position would go backwards).
   * A script error (a reply, not a lost connection) is split up to find the op that causes it;
   * that op alone is dropped and its job aborted, so one bad write cannot stall all the others.
   */
  private requeueFailedBatch(batch: PendingWrite[], err: unknown): void {
    const keep = batch.filter((p) => {
      if (p.op.kind === 'checkpoint' && (this.lastSent.get(p.op.id) ?? 0) > p.seq) {
        p.resolve(true);
        return false;
      }
      return true;
    });
    if (isScriptError(err)) {
      if (keep.length === 1) {
        const p = keep[0]!;
        this.log.error({ err, jobId: p.op.id, kind: p.op.kind }, 'write refused by Redis; dropping it');
        this.onLeaseLost(p.op.id, p.op.token, 'write failed in Redis');
        p.resolve(false);
        return;
      }
      for (const p of keep) p.isolate = true;
    }
    this.pending = keep.concat(this.pending);
  }

  private committed(batch: PendingWrite[], want: number, res: CommitResult): void {
    for (let i = 0; i < batch.length; i++) {
      const p = batch[i]!;
      const ok = res.written[i] ?? false;
      if (!ok) this.onLeaseLost(p.op.id, p.op.token, 'write refused');
      p.resolve(ok);
    }
    if (
      this.crossQueueChildren.size > 0 &&
      batch.some((p) => this.crossQueueChildren.has(p.op.id) && p.op.kind !== 'checkpoint')
    ) {
      for (const p of batch) this.crossQueueChildren.delete(p.op.id);
      void this.store
        .relayOutbox(this.queue)
        .catch((err) => this.log.warn({ err }, 'outbox relay failed; the reaper retries'));
    }
    for (const c of res.claimed) {
      if (this.stopping) {
        // Claimed by a commit that was in flight when stop() began: hand it back at once,
        // unrun (T2: no work starts after the signal).
        void this.write({
          kind: 'requeue',
          id: c.id,
          token: c.token,
          log: ['{"type":"requeued","reason":"shutdown"}'],
        });
      } else this.startJob(c);
    }
    if (want > 0) {
      this.nextDueAt = res.nextDueAt;
      if (res.claimed.length < want) this.starved = true;
    }
  }

  /** IDLE: block until work is signalled, a write is queued, or the next delayed job is due. */
  private async idle(): Promise<void> {
    // A wait that returned while we were claiming consumed a wake-up signal our claim may have
    // missed (the job arrived just after it): claim again rather than sleep on a used signal.
    if (this.signalled) return;
    let timeout = this.idleWaitMs;
    if (this.nextDueAt !== null)
      timeout = Math.max(5, Math.min(timeout, this.nextDueAt - (Date.now() + this.clockOffset) + 5));
    const wakeUp = new Promise<void>((r) => (this.wake = r));
    // One blocking wait at a time: a wait still in flight is joined, not doubled.
    this.waitInFlight ??= this.store.waitForWork(this.queue, timeout).finally(() => {
      this.waitInFlight = undefined;
      this.signalled = true;
    });
    // A joined wait may have been started with a longer timeout (before a backoff retry was
    // written), so a timer of our own bounds the sleep: a job due in 10 ms MUST NOT wait out
    // idleWaitMs.
    let timer: NodeJS.Timeout | undefined;
    const due = new Promise<void>((r) => (timer = setTimeout(r, timeout)));
    await Promise.race([this.waitInFlight, wakeUp, due]);
    clearTimeout(timer);
    this.wake = undefined;
  }

  private startJob(c: ClaimedJob): void {
    const job = new ActiveJob(c, this);
    // The same job claimed again (its old run lost the lease): the old run's slot accounting ends here.
    if (this.running.get(c.id)?.released) this.releasing--;
    this.running.set(c.id, job);
    void runClaimedJob(this, job)
      .catch((err) => this.log.error({ err, jobId: c.id }, 'job runner failed'))
      .finally(() => {
        if (this.running.get(c.id) === job) {
          this.running.delete(c.id);
          if (job.released) this.releasing--;
        }
        if (this.running.size === 0) this.drained?.();
        this.kick();
      });
  }

  /** A running child whose parent is on another queue: its ending is relayed from the outbox. */
  noteCrossQueueChild(id: string): void {
    this.crossQueueChildren.add(id);
  }

  /** Aborts the run that held `token`; a newer run of the same job (claimed again) is not touched. */
  private onLeaseLost(id: string, token: string, why: string): void {
    const job = this.running.get(id);
    if (job && job.token === token && !job.abortReason) {
      this.log.warn({ jobId: id, why }, 'lease lost; dropping job');
      job.abort('lease-lost', `lease lost (${why})`);
    }
  }

  private onControl(message: string): void {
    const [cmd, id] = message.split(' ');
    if (!id) return;
    if (cmd === 'cancel') this.running.get(id)?.abort('cancel', 'job was cancelled');
    else if (cmd === 'event') {
      const job = this.running.get(id);
      if (job?.onInbox) job.onInbox();
      else if (job) job.inboxSignal = true;
    } else if (cmd === 'fanin') {
      const job = this.running.get(id);
      if (job?.onFanIn) job.onFanIn();
      else if (job) job.fanInSignal = true;
    }
  }

  private async heartbeat(): Promise<void> {
    // Aborted runs (timeout, cancel, shutdown) keep their lease until their final write lands;
    // only a run whose lease is already lost is left out.
    const jobs = [...this.running.values()].filter((j) => j.abortReason !== 'lease-lost');
    if (jobs.length === 0) return;
    try {
      const states = await this.store.heartbeat(
        this.queue,
        jobs.map((j) => ({ id: j.id, token: j.token })),
        this.leaseMs,
      );
      states.forEach((s, i) => {
        const job = jobs[i]!;
        if (s === 'lost') this.onLeaseLost(job.id, job.token, 'heartbeat');
        else if (s === 'cancel') job.abort('cancel', 'job was cancelled');
      });
    } catch (err) {
      this.log.warn({ err }, 'heartbeat failed');
    }
  }

  private async reap(): Promise<void> {
    try {
      const r = await this.store.reap(this.queue, { maxLeaseRequeues: this.maxLeaseRequeues });
      await this.store.relayOutbox(this.queue);
      if (r.requeued.length || r.failed.length) this.log.warn(r, 'reaped expired leases');
    } catch (err) {
      this.log.warn({ err }, 'reaper failed');
    }
  }
}
