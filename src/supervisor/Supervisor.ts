// The supervisor: claims jobs from one queue, runs them, and writes their states back. It owns
// the running jobs, their leases (heartbeat, reaper, deadlines), the control channel and the
// shutdown; claims and writes go through its CommitPump (CommitPump.ts: the pump's modes and its
// batching invariants).
//
// Modes:
//   RUNNING   start() .. stop(): the pump claims and writes, timers extend leases, reap expired
//             ones and abort attempts past their deadline; control messages reach running jobs.
//   STOPPING  stop(): no more claims; running jobs get the grace period, then are aborted with
//             'shutdown' and requeued at once (not after lease expiry); the pump drains.
//
// Invariants:
//   THE FENCE  a job's lease MUST be held for every write. Writes are fenced in Redis by the
//              lease token; a run whose lease is reported lost (refused write, heartbeat) is
//              aborted and never written again. A newer run of the same job is not touched.
//   LEASES     every running job not already lost has its lease extended by each heartbeat,
//              aborted runs included, until their final write lands.
//   SLOTS      `running` holds one run per job id; a run replaced by a new claim of its job, or
//              ended, leaves the pump's slot count (`runEnded`) exactly once.

import { hostname } from 'node:os';
import { monotonicFactory } from 'ulid';
import { pino, type Logger } from 'pino';
import type { CommitOp, Store, ClaimedJob } from '../store/types.js';
import { Registry, type AnyDefinition } from '../runtime/registry.js';
import { ActiveJob } from './ActiveJob.js';
import { CommitPump } from './CommitPump.js';
import { runClaimedJob } from './runClaimedJob.js';
import { MachinistError, RedisUnavailableError } from '../errors.js';
import { backoffMs, redisErrorKind } from '../store/redisErrors.js';
import { OutageLog } from './OutageLog.js';
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

const ulid = monotonicFactory();

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
  /** Claims and writes: every commit goes through here. */
  private readonly pump: CommitPump;
  private started = false;
  private timers: NodeJS.Timeout[] = [];
  /** Enqueues child jobs and walks subtrees to cancel them (names checked against the registry). */
  private readonly client: Client;
  private drained: (() => void) | undefined;
  /** Heartbeat and reaper calls failing with temporary Redis errors: one warning per outage. */
  private readonly heartbeatOutage: OutageLog;
  private readonly reaperOutage: OutageLog;
  private heartbeatInFlight: Promise<void> | undefined;
  private reapInFlight = false;
  /** A failed heartbeat's early retry (LEASES: renewed as soon as Redis takes it again). */
  private heartbeatRetry: NodeJS.Timeout | undefined;
  private unwatchConnection: (() => void) | undefined;

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
    this.heartbeatOutage = new OutageLog(this.log, 'heartbeats');
    this.reaperOutage = new OutageLog(this.log, 'reaper calls');
    this.client = new Client({ store: this.store, queue: this.queue });
    this.pump = new CommitPump({
      store: this.store,
      queue: this.queue,
      workerId: this.workerId,
      concurrency: this.concurrency,
      leaseMs: this.leaseMs,
      idleWaitMs: this.idleWaitMs,
      log: this.log,
      loadMachines: this.registry.loadMachines(),
      running: this.running,
      startJob: (c) => this.startJob(c),
      onLeaseLost: (id, token, why) => this.onLeaseLost(id, token, why),
    });
  }

  /**
   * Redis time minus this worker's clock (ms), from the last commit. Durable times (timers,
   * wake-ups) are kept on Redis's clock, never a worker's: a skewed worker neither wakes a
   * parked job early nor late.
   */
  get clockOffset(): number {
    return this.pump.clockOffset;
  }
  set clockOffset(ms: number) {
    this.pump.clockOffset = ms;
  }

  /** Enqueues a parent's children for one fan-out group (idempotent: deterministic ids). */
  enqueueChildren(parentId: string, group: string, jobs: readonly FanOutJob[]): Promise<void> {
    return this.untilRedisAnswers(() => this.client.enqueueChildren(parentId, this.queue, group, jobs));
  }

  /** Cancels a job and its whole subtree. */
  async cancelTree(id: string, queue: string): Promise<void> {
    await this.untilRedisAnswers(() => this.client.cancel(id, { queue }));
  }

  /**
   * A client call made for a running job (its children, a subtree cancel) waits out an outage
   * like the supervisor's own calls, rather than failing the job's attempt after the client's
   * bound. Both are safe to send again: children have fixed ids, a cancel is idempotent.
   */
  private async untilRedisAnswers<T>(call: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await call();
      } catch (err) {
        // Each failed try waited out the store's bound already: no pause needed here.
        if (!(err instanceof RedisUnavailableError) || !this.started) throw err;
      }
    }
  }

  get inFlight(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('Supervisor: already started');
    // An outage is logged once when it starts and once when it ends, not per failed call: the
    // supervisor's calls wait it out (the store re-sends them when Redis is back).
    this.unwatchConnection = this.store.watchConnection?.((c) => {
      if (!c.up)
        this.log.warn(
          { address: c.address, err: c.error },
          `Redis at ${c.address} is unreachable; retrying until it is back`,
        );
      else
        this.log.info(
          { address: c.address, downMs: c.downMs },
          `Redis at ${c.address} is reachable again after ${c.downMs} ms`,
        );
    });
    const policy = (await this.store.evictionPolicy?.()) ?? null;
    if (policy === null) this.log.warn('cannot read Redis maxmemory-policy; make sure it is noeviction');
    else if (policy !== 'noeviction' && !this.allowEviction) {
      this.unwatchConnection?.();
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
    this.pump.start();
    this.log.info({ queue: this.queue, workerId: this.workerId }, 'supervisor started');
  }

  /**
   * Stops claiming, lets running jobs finish for `graceMs`, then requeues the rest at once.
   */
  async stop(options: { graceMs?: number } = {}): Promise<StopResult> {
    const graceMs = options.graceMs ?? 30_000;
    if (!this.started) return { forced: false, requeued: 0 };
    this.pump.stop();
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
    clearTimeout(this.heartbeatRetry);
    await this.pump.drain();
    this.started = false;
    this.unwatchConnection?.();
    this.log.info({ forced, requeued }, 'supervisor stopped');
    return { forced, requeued };
  }

  /** Queues a fenced write; the pump sends it with the next batch. */
  write(op: CommitOp, job?: ActiveJob): Promise<boolean> {
    return this.pump.write(op, job);
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

  private startJob(c: ClaimedJob): void {
    const job = new ActiveJob(c, this.pump);
    // The same job claimed again (its old run lost the lease): the old run's slot accounting ends here.
    const old = this.running.get(c.id);
    if (old) this.pump.runEnded(old);
    this.running.set(c.id, job);
    void runClaimedJob(this, job)
      .catch((err) => this.log.error({ err, jobId: c.id }, 'job runner failed'))
      .finally(() => {
        if (this.running.get(c.id) === job) {
          this.running.delete(c.id);
          this.pump.runEnded(job);
        }
        if (this.running.size === 0) this.drained?.();
        this.pump.kick();
      });
  }

  /** A running child whose parent is on another queue: its ending is relayed from the outbox. */
  noteCrossQueueChild(id: string): void {
    this.pump.noteCrossQueueChild(id);
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

  /** One heartbeat at a time: calls that pile up behind an outage would all land at its end. */
  private heartbeat(): Promise<void> {
    this.heartbeatInFlight ??= this.extendLeases().finally(() => (this.heartbeatInFlight = undefined));
    return this.heartbeatInFlight;
  }

  private async extendLeases(): Promise<void> {
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
      this.heartbeatOutage.recovered();
      states.forEach((s, i) => {
        const job = jobs[i]!;
        if (s === 'lost') this.onLeaseLost(job.id, job.token, 'heartbeat');
        else if (s === 'cancel') job.abort('cancel', 'job was cancelled');
      });
    } catch (err) {
      // A failed heartbeat loses no lease by itself: the jobs keep running and the next call
      // extends them. A temporary error is retried sooner than the next beat, so leases are
      // renewed as soon as Redis takes writes again (before they can expire, where possible).
      if (redisErrorKind(err) !== 'transient') {
        this.log.error({ err }, 'heartbeat refused by Redis');
        return;
      }
      this.heartbeatOutage.failed(err);
      if (this.timers.length > 0) {
        clearTimeout(this.heartbeatRetry);
        const cap = Math.min(1000, this.heartbeatMs / 2);
        this.heartbeatRetry = setTimeout(
          () => void this.heartbeat(),
          backoffMs(this.heartbeatOutage.consecutiveFailures, cap),
        );
        this.heartbeatRetry.unref();
      }
    }
  }

  private async reap(): Promise<void> {
    if (this.reapInFlight) return;
    this.reapInFlight = true;
    try {
      // A worker whose heartbeats are failing must not reap its own running jobs when Redis
      // comes back: extend first, and reap only once that has worked.
      if (this.heartbeatOutage.failing) {
        await this.heartbeat();
        if (this.heartbeatOutage.failing) return;
      }
      const r = await this.store.reap(this.queue, { maxLeaseRequeues: this.maxLeaseRequeues });
      await this.store.relayOutbox(this.queue);
      this.reaperOutage.recovered();
      if (r.requeued.length || r.failed.length) this.log.warn(r, 'reaped expired leases');
    } catch (err) {
      if (redisErrorKind(err) === 'transient') this.reaperOutage.failed(err);
      else this.log.error({ err }, 'reaper call refused by Redis');
    } finally {
      this.reapInFlight = false;
    }
  }
}
