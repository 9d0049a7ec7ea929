// The supervisor: claims jobs from one queue, runs them, and writes their states back. It owns
// the start and the stop; the parts it starts and stops own the rest: the options and their
// checks (supervisorOptions.ts), the running jobs and the grace period (RunningJobs.ts: THE
// FENCE, SLOTS), the leases (LeaseKeeper.ts: LEASES), the control channel (controlChannel.ts),
// and claims and writes (CommitPump.ts: the pump's modes and its batching invariants).
//
// Modes:
//   RUNNING   start() .. stop(): the pump claims and writes, timers extend leases, reap expired
//             ones and abort attempts past their deadline; control messages reach running jobs.
//   STOPPING  stop(): no more claims; running jobs get the grace period, then are aborted with
//             'shutdown' and requeued at once (not after lease expiry); the pump drains.
//   STOPPED   before start() and after stop(); start() again builds a fresh pump (with its own
//             blocking connection), timers and control subscription.

import type { Logger } from 'pino';
import { hasServerChecks, hasWebhooks, type CommitOp, type Store } from '../store/types.js';
import type { HookStore } from '../store/HookStore.js';
import { Registry } from '../runtime/registry.js';
import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import { CommitPump } from './CommitPump.js';
import { StoreClock } from '../store/StoreClock.js';
import { runClaimedJob } from './runClaimedJob.js';
import { RegistryRefresh } from './RegistryRefresh.js';
import { RedisUnavailableError, SandboxError } from '../errors.js';
import { inSandboxThread } from '../runtime/sandbox/sandboxThreadMark.js';
import { LeaseKeeper } from './LeaseKeeper.js';
import { checkRedisSettings } from './checkRedisSettings.js';
import { checkDefinitions } from './checkDefinitions.js';
import { OutboxRelay } from './OutboxRelay.js';
import { checkRetention } from './checkRetention.js';
import { logConnectionChanges } from './logConnectionChanges.js';
import { Client } from '../client/Client.js';
import { IngressDrain } from './IngressDrain.js';
import { WebhookDispatcher } from '../webhooks/WebhookDispatcher.js';
import type { WebhookSettings } from '../webhooks/webhookSettings.js';
import { combineObservers, type JobObserver } from '../runtime/JobObserver.js';
import { attemptTracer } from '../tracing/attemptTracer.js';
import { RunningJobs } from './RunningJobs.js';
import { subscribeControl } from './controlChannel.js';
import { listenForStrayErrors } from './strayErrors.js';
import { resolveSupervisorOptions, type StopResult, type SupervisorOptions } from './supervisorOptions.js';
import { CODE } from '../errorCodes.js';

export type { StopResult, SupervisorOptions } from './supervisorOptions.js';

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
  private readonly runs: RunningJobs;
  /** Redis time on the monotonic clock; set by every commit. */
  private readonly clock = new StoreClock();
  /** Claims and writes: every commit goes through here. A fresh one for each start(). */
  private pump: CommitPump;
  private state: 'stopped' | 'starting' | 'running' | 'stopping' = 'stopped';
  /** The start() or stop() in progress, which another call waits for. */
  private transition: Promise<unknown> | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  /** Heartbeat, reaper and deadline sweep (LEASES). */
  private readonly leases: LeaseKeeper;
  private readonly outbox: OutboxRelay;
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
  private readonly isolateStrayErrors: boolean;
  /** Turns this supervisor's share of the stray-error handlers off (set while started). */
  private unlistenStray: (() => void) | undefined;

  constructor(options: SupervisorOptions) {
    const o = resolveSupervisorOptions(options);
    this.store = o.store;
    this.registry = new Registry(o.jobs);
    this.queue = o.queue;
    this.concurrency = o.concurrency;
    this.leaseMs = o.leaseMs;
    this.heartbeatMs = o.heartbeatMs;
    this.reaperIntervalMs = o.reaperIntervalMs;
    this.maxLeaseRequeues = o.maxLeaseRequeues;
    this.idleWaitMs = o.idleWaitMs;
    this.allowEviction = o.allowEviction;
    this.acceptChanged = o.acceptChangedMachines;
    this.maxPayloadBytes = o.maxPayloadBytes;
    this.observers = o.observers;
    this.tracing = o.tracing;
    this.workerId = o.workerId;
    this.log = o.log;
    this.webhookSettings = o.webhooks;
    this.isolateStrayErrors = o.isolateStrayErrors;
    this.runs = new RunningJobs({
      queue: this.queue,
      registry: this.registry,
      log: this.log,
      pump: () => this.pump,
      observer: () => this.observer,
      hooksStarted: () => this.webhooks?.poke(),
      run: (job) => runClaimedJob(this, job),
      isolateStrayErrors: o.isolateStrayErrors,
    });
    // One relay of this queue's outbox at a time, for the pump and the reaper alike.
    const outbox = new OutboxRelay(this.store, this.queue, this.log);
    this.outbox = outbox;
    this.leases = new LeaseKeeper({
      store: this.store,
      outbox,
      queue: this.queue,
      log: this.log,
      running: this.runs.running,
      leaseMs: this.leaseMs,
      heartbeatMs: this.heartbeatMs,
      reaperIntervalMs: this.reaperIntervalMs,
      maxLeaseRequeues: this.maxLeaseRequeues,
      onLeaseLost: (id, token, why) => this.runs.leaseLost(id, token, why),
      onRequeued: (count) => this.observer?.leaseRequeued?.(count),
    });
    // Enqueues child jobs and walks subtrees to cancel them (names checked against the registry;
    // inputs against the input schemas of the definitions this supervisor has).
    const client = new Client({ store: this.store, queue: this.queue, inputSchemasFrom: this.registry });
    this.client = client;
    this.registryRefresh = new RegistryRefresh(
      this.store,
      this.queue,
      this.registry.info(),
      o.registryRefreshMs,
      this.log,
    );
    this.pump = this.newPump();
    if (o.ingress)
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
      readInbox: (id, from) => store.readInbox(id, queue, from),
      fanOpen: (parentId, token, group, total, policy) =>
        store.fanOpen(parentId, queue, group, total, policy, token),
      enqueueChildren: (parentId, token, group, jobs, revive, trace) =>
        this.untilRedisAnswers(() =>
          client.enqueueChildren(parentId, queue, group, jobs, revive, token, trace),
        ),
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
    return this.runs.size;
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
      running: this.runs.running,
      startJob: (c) => this.runs.start(c),
      onLeaseLost: (id, token, why) => this.runs.leaseLost(id, token, why),
      clock: this.clock,
      outbox: this.outbox,
    });
  }

  /**
   * Starts claiming and running jobs. A stopped supervisor may be started again (a stop() in
   * progress is waited for first); starting a running one throws.
   */
  async start(): Promise<void> {
    if (inSandboxThread())
      throw new SandboxError(
        CODE.SANDBOX_LOAD,
        "Supervisor.start() was called in a sandbox thread: the module a sandboxed job names (sandbox: 'thread' names the module that called defineJob) is imported again in each thread and must only define jobs; start the Supervisor from another module",
        { queue: this.queue },
      );
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
      this.unlistenStray?.();
      this.unlistenStray = undefined;
      throw err;
    }
  }

  private async begin(): Promise<void> {
    // Before anything is written: a definition none of whose jobs could run here (a pipeline on
    // an unsupported XState) refuses the start rather than fail or corrupt its jobs later.
    this.registry.preflight();
    checkRetention(this.store, this.leaseMs, this.reaperIntervalMs);
    this.unwatchConnection = logConnectionChanges(this.store, this.log);
    try {
      // Before anything is written: a store of another data format is refused (one read).
      if (hasServerChecks(this.store)) await this.store.checkFormat();
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
    this.unsubscribe = await subscribeControl(this.store, this.queue, this.workerId, this.runs.running);
    this.leases.start();
    // Before the first claim: a job's stray error MUST find the handlers in place.
    if (this.isolateStrayErrors) this.unlistenStray = listenForStrayErrors(this.log);
    this.pump = this.newPump();
    this.pump.start();
    this.ingress?.start();
    // Settings are made only for a store with the WebhookHost role (supervisorOptions.ts).
    if (this.webhookSettings && hasWebhooks(this.store)) {
      this.webhooks = this.newWebhookDispatcher(this.webhookSettings, this.store.webhookStore(this.queue));
      this.webhooks.start();
    }
    this.log.info({ queue: this.queue, workerId: this.workerId }, 'supervisor started');
  }

  /** Deliveries are told to the settings' onDelivery and to the observers (metrics). */
  private newWebhookDispatcher(settings: WebhookSettings, hooks: HookStore): WebhookDispatcher {
    const { onDelivery } = settings;
    const observer = this.observer;
    return new WebhookDispatcher({
      ...settings,
      onDelivery:
        observer?.webhookDelivered === undefined
          ? onDelivery
          : (result) => {
              observer.webhookDelivered!(result);
              onDelivery?.(result);
            },
      hooks,
      queue: this.queue,
      owner: this.workerId,
      log: this.log,
      getRecord: (id) => this.client.get(id, { queue: this.queue }),
    });
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
      this.runs.shortenGrace(options.graceMs ?? 30_000);
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
    const { forced, requeued } = await this.runs.drain(graceMs);
    this.leases.stop();
    this.registryRefresh.stop();
    await this.pump.drain();
    await ingressStopped;
    // After the jobs' last writes: their events are on the stream for the next leader.
    await this.webhooks?.stop();
    this.webhooks = undefined;
    this.runs.forgetDrain();
    await this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.unwatchConnection?.();
    this.unwatchConnection = undefined;
    // After the drain: the attempts it waited for are still covered to their ending writes.
    this.unlistenStray?.();
    this.unlistenStray = undefined;
    this.log.info({ forced, requeued }, 'supervisor stopped');
    return { forced, requeued };
  }

  /** Queues a fenced write; the pump sends it with the next batch. */
  write(op: CommitOp, job?: ActiveJob): Promise<boolean> {
    return this.pump.write(op, job);
  }

  /** A running child whose parent is on another queue: its ending is relayed from the outbox. */
  noteCrossQueueChild(id: string): void {
    this.pump.noteCrossQueueChild(id);
  }
}
