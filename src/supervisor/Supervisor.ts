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
//   STOPPED   before start() and after stop(); start() again builds a fresh pump (with its own
//             blocking connection), timers and control subscription.
//
// Invariants:
//   THE FENCE  a job's lease MUST be held for every write. Writes are fenced in Redis by the
//              lease token; a run whose lease is reported lost (refused write, heartbeat) is
//              aborted and never written again. A newer run of the same job is not touched.
//   LEASES     every running job not already lost has its lease extended by each heartbeat,
//              aborted runs included, until their final write lands.
//   SLOTS      `running` holds one run per job id; a run replaced by a new claim of its job, or
//              ended, leaves the pump's slot count (`runEnded`) exactly once. A run is known by
//              its token: a replaced run is aborted ('lease-lost'), and a refused write or a lost
//              heartbeat aborts only the run whose token it carried.

import { hostname } from 'node:os';
import { monotonicFactory } from 'ulid';
import { pino, type Logger } from 'pino';
import type { CommitOp, Store, ClaimedJob } from '../store/types.js';
import { Registry, type AnyDefinition } from '../runtime/registry.js';
import { ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import { CommitPump } from './CommitPump.js';
import { RedisClock } from './RedisClock.js';
import { runClaimedJob } from './runClaimedJob.js';
import { RegistryRefresh } from './RegistryRefresh.js';
import { RedisUnavailableError } from '../errors.js';
import { LeaseKeeper } from './LeaseKeeper.js';
import { checkRedisSettings } from './checkRedisSettings.js';
import { checkDefinitions } from './checkDefinitions.js';
import { logConnectionChanges } from './logConnectionChanges.js';
import { assertQueueName } from '../store/keys.js';
import { Client } from '../client/Client.js';
import { DEFAULT_MAX_PAYLOAD_BYTES } from '../runtime/inputLimits.js';
import { IngressDrain } from './IngressDrain.js';
import { WebhookDispatcher, type WebhookSettings } from '../webhooks/WebhookDispatcher.js';
import { combineObservers, type AttemptInfo, type JobObserver } from '../runtime/JobObserver.js';
import { attemptTracer } from '../tracing/attemptTracer.js';

/** How the worker's log names the write that ended a run. */
const ENDINGS: Record<string, string> = {
  done: 'done',
  fail: 'failed',
  retry: 'failed, retry scheduled',
  cancelled: 'cancelled',
  requeue: 'requeued',
  park: 'parked',
  broken: 'set aside as broken',
};

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
  /**
   * The longest wait between looks for expired leases. Default 5 s. (The reaper also wakes when
   * the earliest running lease passes, so a dead worker's jobs are requeued at their lease's end.)
   */
  reaperIntervalMs?: number;
  /** Lease requeues a job may have before it fails with LEASE_EXPIRED. Default 5. */
  maxLeaseRequeues?: number;
  /** Longest idle block before looking again. Default 5 s. */
  idleWaitMs?: number;
  workerId?: string;
  /**
   * Largest job input this supervisor runs, serialized (UTF-8 bytes); a larger one (written by
   * something other than a Client, which refuses it) is set aside as broken, INPUT_TOO_LARGE.
   * Default 1 MiB, the Client's default.
   */
  maxPayloadBytes?: number;
  /**
   * Start even when Redis may evict keys (any maxmemory-policy but noeviction). An evicted job
   * is a lost job, so by default start() refuses with EVICTING_REDIS. Default false.
   */
  allowEviction?: boolean;
  /**
   * How often this supervisor writes its machines and queue to the registry again, which
   * restores them after Redis lost its data without a reconnect (FLUSHALL); a reconnect writes
   * them at once. Default 30 s.
   */
  registryRefreshMs?: number;
  /**
   * Start although a pipeline's definition differs from the one registered for its name and
   * version (start() refuses with MACHINE_CHANGED otherwise): true, or the changes accepted as
   * 'name@version' (or 'name' for all its versions). The registry then holds this definition.
   */
  acceptChangedMachines?: boolean | readonly string[];
  /**
   * Move entries foreign producers push onto the queue's ingress list into jobs
   * (docs/ingress.md). Costs one blocking connection. Default true (when the store has one).
   */
  ingress?: boolean;
  /**
   * Deliver the webhooks jobs of this queue asked for (docs/webhooks.md): true (default),
   * false, or settings (retries, deadline, onDelivery, ...). Costs one EXISTS per 30 s while no
   * job of the queue has hooks.
   */
  webhooks?: boolean | WebhookSettings;
  /**
   * Hosts webhooks may reach although they are not public addresses (the SSRF guard refuses
   * loopback, private, link-local, ... otherwise): names or IPs, optionally `host:port`.
   */
  webhookAllowHosts?: readonly string[];
  logger?: Logger;
  /**
   * Told of each attempt's start, states and end, and of lease requeues: e.g. a
   * `MachinistMetrics` (src/metrics). None by default.
   */
  observers?: readonly JobObserver[];
  /**
   * Trace attempts with OpenTelemetry when `@opentelemetry/api` is installed and a tracer
   * provider is registered (a `process <queue>` span per attempt, linked to the enqueue's
   * `publish` span; a child span per pipeline state). Default true; without a provider it
   * starts no span.
   */
  tracing?: boolean;
}

export interface StopResult {
  /** True when jobs were still running at the end of the grace period and were requeued. */
  forced: boolean;
  requeued: number;
}

const ulid = monotonicFactory();

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
  readonly maxPayloadBytes: number;
  private readonly allowEviction: boolean;
  private readonly acceptChanged: boolean | readonly string[];
  private readonly registryRefresh: RegistryRefresh;

  /** All a job's runner may use of this supervisor (one object for every job). */
  readonly attemptHost: AttemptHost;
  private readonly running = new Map<string, ActiveJob>();
  /** Redis time on the monotonic clock; set by every commit. */
  private readonly clock = new RedisClock();
  /** Claims and writes: every commit goes through here. A fresh one for each start(). */
  private pump: CommitPump;
  private state: 'stopped' | 'starting' | 'running' | 'stopping' = 'stopped';
  /** The start() or stop() in progress, which another call waits for. */
  private transition: Promise<unknown> | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private drained: (() => void) | undefined;
  /** While stop() waits out its grace period: ends the grace `ms` from now, if that is sooner. */
  private shortenGrace: ((ms: number) => void) | undefined;
  /** Heartbeat, reaper and deadline sweep (LEASES). */
  private readonly leases: LeaseKeeper;
  private unwatchConnection: (() => void) | undefined;
  /** Foreign producers' entries into jobs (undefined when turned off). */
  private readonly ingress: IngressDrain | undefined;
  private readonly webhookSettings: WebhookSettings | undefined;
  /** Webhook deliveries for this queue (a fresh one per start()). */
  private webhooks: WebhookDispatcher | undefined;
  private readonly client: Client;
  private readonly observers: readonly JobObserver[];
  private readonly tracing: boolean;
  /** Every observer in one (set by start(): the tracer is loaded then); undefined: none. */
  private observer: JobObserver | undefined;

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
    this.acceptChanged = options.acceptChangedMachines ?? false;
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    this.observers = options.observers ?? [];
    this.tracing = options.tracing ?? true;
    for (const [k, v] of Object.entries({
      concurrency: this.concurrency,
      leaseMs: this.leaseMs,
      heartbeatMs: this.heartbeatMs,
      reaperIntervalMs: this.reaperIntervalMs,
      idleWaitMs: this.idleWaitMs,
      registryRefreshMs: options.registryRefreshMs ?? 30_000,
      maxPayloadBytes: this.maxPayloadBytes,
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
    this.leases = new LeaseKeeper({
      store: this.store,
      queue: this.queue,
      log: this.log,
      running: this.running,
      leaseMs: this.leaseMs,
      heartbeatMs: this.heartbeatMs,
      reaperIntervalMs: this.reaperIntervalMs,
      maxLeaseRequeues: this.maxLeaseRequeues,
      onLeaseLost: (id, token, why) => this.onLeaseLost(id, token, why),
      onRequeued: (count) => this.observer?.leaseRequeued?.(count),
    });
    // Enqueues child jobs and walks subtrees to cancel them (names checked against the registry).
    const client = new Client({ store: this.store, queue: this.queue });
    this.client = client;
    if (options.webhooks !== false && this.store.webhookStore) {
      const settings = typeof options.webhooks === 'object' ? options.webhooks : {};
      this.webhookSettings = {
        ...settings,
        allowHosts: [...(settings.allowHosts ?? []), ...(options.webhookAllowHosts ?? [])],
      };
    }
    this.registryRefresh = new RegistryRefresh(
      this.store,
      this.queue,
      this.registry.info(),
      options.registryRefreshMs ?? 30_000,
      this.log,
    );
    this.pump = this.newPump();
    if (options.ingress !== false)
      this.ingress = new IngressDrain({
        store: this.store,
        queue: this.queue,
        registry: this.registry,
        maxPayloadBytes: this.maxPayloadBytes,
        log: this.log,
      });
    const { store, queue, log } = this;
    this.attemptHost = {
      queue,
      log,
      now: () => this.clock.now(),
      readInbox: (id, from) => store.readInbox(queue, id, from),
      fanOpen: (parentId, group, total, policy) => store.fanOpen(queue, parentId, group, total, policy),
      enqueueChildren: (parentId, group, jobs, revive) =>
        this.untilRedisAnswers(() => client.enqueueChildren(parentId, queue, group, jobs, revive)),
      cancelTree: (id, childQueue) =>
        this.untilRedisAnswers(async () => void (await client.cancel(id, { queue: childQueue }))),
    };
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
        if (!(err instanceof RedisUnavailableError) || this.state === 'stopped') throw err;
      }
    }
  }

  /**
   * Redis time minus this worker's wall clock now (ms). Durable times (timers, wake-ups) are
   * kept on Redis's clock, never a worker's: a skewed worker neither wakes a parked job early
   * nor late.
   */
  get clockOffset(): number {
    return this.clock.now() - Date.now();
  }

  get inFlight(): number {
    return this.running.size;
  }

  private newPump(): CommitPump {
    return new CommitPump({
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
      clock: this.clock,
    });
  }

  /**
   * Starts claiming and running jobs. A stopped supervisor may be started again (a stop() in
   * progress is waited for first); starting a running one throws.
   */
  async start(): Promise<void> {
    if (this.state === 'stopping') await this.transition;
    if (this.state !== 'stopped') throw new Error('Supervisor: already started');
    this.state = 'starting';
    const starting = this.begin();
    this.transition = starting;
    try {
      await starting;
      this.state = 'running';
    } catch (err) {
      this.state = 'stopped';
      throw err;
    }
  }

  private async begin(): Promise<void> {
    // Before anything is written: a definition none of whose jobs could run here (a pipeline on
    // an unsupported XState) refuses the start rather than fail or corrupt its jobs later.
    this.registry.preflight();
    this.unwatchConnection = logConnectionChanges(this.store, this.log);
    try {
      await checkRedisSettings(this.store, this.log, {
        allowEviction: this.allowEviction,
        queue: this.queue,
      });
      await checkDefinitions(this.store, this.registry.info(), this.acceptChanged, this.log);
    } catch (err) {
      this.unwatchConnection?.();
      throw err;
    }
    // Loaded here, not per job: @opentelemetry/api is an optional dependency (import()ed once).
    this.observer = combineObservers([...this.observers, this.tracing ? await attemptTracer() : undefined]);
    await this.registryRefresh.start();
    const sub = (this.store as { subscribeControl?: Store['subscribeControl'] }).subscribeControl;
    if (sub)
      this.unsubscribe = await sub.call(this.store, this.queue, this.workerId, (m: string) =>
        this.onControl(m),
      );
    this.leases.start();
    this.pump = this.newPump();
    this.pump.start();
    this.ingress?.start();
    if (this.webhookSettings) {
      // Deliveries are told to the settings' onDelivery and to the observers (metrics).
      const { onDelivery } = this.webhookSettings;
      const observer = this.observer;
      this.webhooks = new WebhookDispatcher({
        ...this.webhookSettings,
        onDelivery:
          observer?.webhookDelivered === undefined
            ? onDelivery
            : (result) => {
                observer.webhookDelivered!(result);
                onDelivery?.(result);
              },
        hooks: this.store.webhookStore!(this.queue),
        queue: this.queue,
        owner: this.workerId,
        log: this.log,
        getRecord: (id) => this.client.get(id, { queue: this.queue }),
      });
      this.webhooks.start();
    }
    this.log.info({ queue: this.queue, workerId: this.workerId }, 'supervisor started');
  }

  /**
   * Stops claiming, lets running jobs finish for `graceMs`, then requeues the rest at once.
   * A second call while one is in progress gets the same result, its `graceMs` ending the grace
   * period sooner if it is shorter (the CLI's second signal: graceMs 0); on a stopped
   * supervisor, a no-op. start() may be called again afterwards.
   */
  async stop(options: { graceMs?: number } = {}): Promise<StopResult> {
    if (this.state === 'starting') await this.transition?.catch(() => undefined);
    if (this.state === 'stopping') {
      this.shortenGrace?.(options.graceMs ?? 30_000);
      return this.transition as Promise<StopResult>;
    }
    if (this.state !== 'running') return { forced: false, requeued: 0 };
    this.state = 'stopping';
    const stopping = this.end(options.graceMs ?? 30_000);
    this.transition = stopping;
    try {
      return await stopping;
    } finally {
      this.state = 'stopped';
    }
  }

  private async end(graceMs: number): Promise<StopResult> {
    this.pump.stop();
    const ingressStopped = this.ingress?.stop();
    let forced = false;
    let requeued = 0;
    if (this.running.size > 0) {
      const drained = new Promise<void>((r) => (this.drained = r));
      // The grace timers keep the process alive (a stop being awaited must end, even on a
      // store holding no socket: MemoryStore) and are cleared as soon as the jobs drain.
      const timers: NodeJS.Timeout[] = [];
      const grace = new Promise<'grace'>((resolve) => {
        this.shortenGrace = (ms) => void timers.push(setTimeout(() => resolve('grace'), ms));
      });
      this.shortenGrace!(graceMs);
      const ended = await Promise.race([drained, grace]);
      this.shortenGrace = undefined;
      if (ended === 'grace' && this.running.size > 0) {
        forced = true;
        requeued = this.running.size;
        for (const job of this.running.values()) job.abort('shutdown', 'supervisor is shutting down');
        await Promise.race([drained, new Promise((r) => timers.push(setTimeout(r, 5_000)))]);
      }
      for (const t of timers) clearTimeout(t);
    }
    this.leases.stop();
    this.registryRefresh.stop();
    await this.pump.drain();
    await ingressStopped;
    // After the jobs' last writes: their events are on the stream for the next leader.
    await this.webhooks?.stop();
    this.webhooks = undefined;
    this.drained = undefined;
    await this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.unwatchConnection?.();
    this.unwatchConnection = undefined;
    this.log.info({ forced, requeued }, 'supervisor stopped');
    return { forced, requeued };
  }

  /** Queues a fenced write; the pump sends it with the next batch. */
  write(op: CommitOp, job?: ActiveJob): Promise<boolean> {
    return this.pump.write(op, job);
  }

  private startJob(c: ClaimedJob): void {
    const job = new ActiveJob(c, this.pump);
    // The same job claimed again by this worker: the old run's lease is gone (its event loop
    // stalled past it, and the reaper requeued it). Replaced here, it would leave the running
    // set with no heartbeat and no deadline, and go on working: it MUST be aborted (unless it
    // already queued its final write), and its slot accounting ends here.
    const old = this.running.get(c.id);
    if (old) {
      if (!old.released) old.abort('lease-lost', 'lease lost (the job was claimed again)');
      this.pump.runEnded(old);
    }
    this.running.set(c.id, job);
    // One line per job start and end at info (the CLI worker's level; the library's default,
    // warn, skips both without building them).
    const logJobs = this.log.isLevelEnabled('info');
    const startedAt = logJobs ? performance.now() : 0;
    if (logJobs)
      this.log.info(
        { jobId: c.id, machine: c.machine, attempt: c.attempt },
        `job ${c.id} (${c.machine}) started${c.attempt > 1 ? `, attempt ${c.attempt}` : ''}`,
      );
    // A job with hooks: its events are to be told now, not at the dispatcher's next idle look.
    if (this.webhooks && c.options?.includes('"webhook"')) this.webhooks.poke();
    const observer = this.observer;
    if (observer !== undefined) job.watch = observer.attemptStarted(this.attemptInfo(c));
    void runClaimedJob(this, job)
      .catch((err) => this.log.error({ err, jobId: c.id }, 'job runner failed'))
      .finally(() => {
        // A run that lost its lease before its ending write: its watch ends here.
        job.endWatch('lease-lost');
        if (logJobs) {
          const ms = Math.round(performance.now() - startedAt);
          const outcome = ENDINGS[job.ending ?? ''] ?? job.abortReason ?? 'stopped';
          // The run's duration goes after its first word: "failed in 22 ms, retry scheduled".
          const [ended, ...then] = outcome.split(', ');
          this.log.info(
            { jobId: c.id, machine: c.machine, outcome, ms },
            `job ${c.id} (${c.machine}) ${[`${ended} in ${ms} ms`, ...then].join(', ')}`,
          );
        }
        if (this.running.get(c.id) === job) {
          this.running.delete(c.id);
          this.pump.runEnded(job);
        }
        if (this.running.size === 0) this.drained?.();
        this.pump.kick();
      });
  }

  private attemptInfo(c: ClaimedJob): AttemptInfo {
    const m = c.machine;
    return {
      id: c.id,
      queue: this.queue,
      machine: m,
      definition: m === undefined ? undefined : (this.registry.get(m, c.version) ?? this.registry.latest(m)),
      attempt: c.attempt,
      status: c.status,
      options: c.options,
    };
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
}
