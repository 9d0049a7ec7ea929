// One queue a supervisor serves (its lane): the pump that claims and writes for it, its running
// jobs (RunningJobs.ts: THE FENCE, SLOTS), leases (LeaseKeeper.ts: LEASES), outbox relay, ingress
// drain, webhook deliveries, control channel and registry refresh. The Supervisor (Supervisor.ts)
// owns the start and the stop, the checks made once, and what its lanes share: the slots and
// claim turns (ClaimShare.ts) and the wait for work (WorkSignals.ts).

import type { Logger } from 'pino';
import { hasWebhooks, type CommitOp, type Store } from '../store/types.js';
import type { HookStore } from '../store/HookStore.js';
import type { Registry } from '../runtime/registry.js';
import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import { CommitPump } from './CommitPump.js';
import { StoreClock } from '../store/StoreClock.js';
import { runClaimedJob } from './runClaimedJob.js';
import { RegistryRefresh } from './RegistryRefresh.js';
import { RedisUnavailableError } from '../errors.js';
import { LeaseKeeper } from './LeaseKeeper.js';
import { OutboxRelay } from './OutboxRelay.js';
import { Client } from '../client/Client.js';
import { IngressDrain } from './IngressDrain.js';
import { WebhookDispatcher } from '../webhooks/WebhookDispatcher.js';
import type { WebhookSettings } from '../webhooks/webhookSettings.js';
import type { JobObserver } from '../runtime/JobObserver.js';
import { RunningJobs } from './RunningJobs.js';
import { subscribeControl } from './controlChannel.js';
import type { StopResult, SupervisorSettings } from './supervisorOptions.js';
import type { ClaimShare } from './ClaimShare.js';
import type { WorkSignals } from './WorkSignals.js';

/** What a lane takes from its supervisor, made once per start() and shared by every lane. */
export interface LaneShared {
  readonly share: ClaimShare;
  readonly signals: WorkSignals;
  /** Every observer in one; undefined: none. */
  readonly observer: JobObserver | undefined;
  /** True when the supervisor serves several queues (CommitPump, IDLE). */
  readonly several: boolean;
}

export class QueueLane {
  readonly queue: string;
  /**
   * The supervisor's resolved settings (supervisorOptions.ts): the one object every lane of it
   * reads, never copied field by field.
   */
  private readonly settings: SupervisorSettings;
  readonly store: Store;
  readonly registry: Registry;
  readonly log: Logger;
  /** This lane's share of the claims (ClaimShare's weight; a partition's is its queue's / N). */
  weight: number;
  /** Partitions of the queue this lane's is (or is a partition of), read at each start. */
  partitions = 1;
  private readonly registryRefresh: RegistryRefresh;

  /** All a job's runner may use of this supervisor (one object for every job). */
  readonly attemptHost: AttemptHost;
  private readonly runs: RunningJobs;
  /** Redis time on the monotonic clock; set by every commit. */
  private readonly clock = new StoreClock();
  /** Claims and writes: every commit goes through here. A fresh one for each start(). */
  private pump: CommitPump | undefined;
  /** Set while started: what the lanes share. */
  private shared: LaneShared | undefined;
  /** False once stopped: a client call made for a job stops waiting out an outage. */
  private started = false;
  private unsubscribe: (() => Promise<void>) | undefined;
  /** Heartbeat, reaper and deadline sweep (LEASES). */
  private readonly leases: LeaseKeeper;
  private readonly outbox: OutboxRelay;
  /** Foreign producers' entries into jobs (undefined when turned off). */
  private readonly ingress: IngressDrain | undefined;
  /** Webhook deliveries for this queue (a fresh one per start()). */
  private webhooks: WebhookDispatcher | undefined;
  private readonly client: Client;

  constructor(o: SupervisorSettings, name: string, weight: number, registry: Registry) {
    this.settings = o;
    this.store = o.store;
    this.registry = registry;
    this.queue = name;
    this.weight = weight;
    this.log = o.log;
    this.runs = new RunningJobs({
      queue: this.queue,
      registry: this.registry,
      log: this.log,
      pump: () => this.pump!,
      observer: () => this.shared?.observer,
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
      deadlines: this.runs.deadlines,
      confirmations: this.runs.confirmations,
      leaseMs: this.settings.leaseMs,
      heartbeatMs: this.settings.heartbeatMs,
      reaperIntervalMs: this.settings.reaperIntervalMs,
      maxLeaseRequeues: this.settings.maxLeaseRequeues,
      onLeaseLost: (id, token, why) => this.runs.leaseLost(id, token, why),
      onRequeued: (count) => this.shared?.observer?.leaseRequeued?.(count),
    });
    // Enqueues child jobs and walks subtrees to cancel them (names checked against the registry;
    // inputs against the input schemas of the definitions this supervisor has).
    const client = new Client({ store: this.store, queue: this.queue, inputSchemasFrom: this.registry });
    this.client = client;
    this.registryRefresh = new RegistryRefresh(
      this.store,
      this.queue,
      this.registry.info(),
      this.registry.queueLimits(),
      o.registryRefreshMs,
      this.log,
    );
    if (o.ingress)
      this.ingress = new IngressDrain({
        store: this.store,
        queue: this.queue,
        registry: this.registry,
        maxPayloadBytes: this.settings.maxPayloadBytes,
        partitions: () => this.partitions,
        log: this.log,
      });
    const { store, queue, log } = this;
    this.attemptHost = {
      queue,
      log,
      now: () => this.clock.now(),
      latest: () => this.clock.latest(),
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
        if (!(err instanceof RedisUnavailableError) || !this.started) throw err;
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

  /** Largest input this worker runs (runClaimedJob's ClaimContext). */
  get maxPayloadBytes(): number {
    return this.settings.maxPayloadBytes;
  }

  get inFlight(): number {
    return this.runs.size;
  }

  /** The jobs this lane runs now, as the fleet lists them (FleetPresence.ts). */
  runningJobs(): { id: string; queue: string; machine: string | null }[] {
    return [...this.runs.running.values()].map((j) => ({
      id: j.id,
      queue: this.queue,
      machine: j.claimed.machine ?? null,
    }));
  }

  private newPump(shared: LaneShared): CommitPump {
    return new CommitPump({
      store: this.store,
      queue: this.queue,
      workerId: this.settings.workerId,
      concurrency: this.settings.concurrency,
      share: shared.share,
      signals: shared.signals,
      shared: shared.several,
      leaseMs: this.settings.leaseMs,
      maxInputBytes: this.settings.maxPayloadBytes,
      leadMs: this.settings.leadMs,
      idleWaitMs: this.settings.idleWaitMs,
      log: this.log,
      loadMachines: this.registry.loadMachines(),
      running: this.runs.running,
      startJob: (c, leaseSureUntil) => this.runs.start(c, leaseSureUntil),
      onLeaseLost: (id, token, why) => this.runs.leaseLost(id, token, why),
      clock: this.clock,
      outbox: this.outbox,
    });
  }

  /**
   * Starts this queue's parts but the claims (`claim()`); the supervisor made its checks
   * already, and put the stray-error handlers in place (Supervisor.begin).
   */
  async begin(shared: LaneShared): Promise<void> {
    this.shared = shared;
    this.started = true;
    await this.registryRefresh.start();
    this.unsubscribe = await subscribeControl(
      this.store,
      this.queue,
      this.settings.workerId,
      this.runs.running,
    );
    this.leases.start();
    this.pump = this.newPump(shared);
    shared.share.add(this.pump, this.weight);
    // Settings are made only for a store with the WebhookHost role (supervisorOptions.ts).
    if (this.settings.webhooks && hasWebhooks(this.store)) {
      this.webhooks = this.newWebhookDispatcher(this.settings.webhooks, this.store.webhookStore(this.queue));
      this.webhooks.start();
    }
  }

  /** Deliveries are told to the settings' onDelivery and to the observers (metrics). */
  private newWebhookDispatcher(settings: WebhookSettings, hooks: HookStore): WebhookDispatcher {
    const { onDelivery } = settings;
    const observer = this.shared?.observer;
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
      owner: this.settings.workerId,
      log: this.log,
      getRecord: (id) => this.client.get(id, { queue: this.queue }),
    });
  }

  /**
   * Starts claiming, and the ingress drain, once every lane has begun (the first turns are taken
   * among all of them).
   */
  claim(): void {
    this.pump?.start();
    this.ingress?.start();
  }

  /** STOPPING: no more claims from this queue (the supervisor stops every lane's at once). */
  stopClaiming(): void {
    this.pump?.stop();
  }

  /** Ends the grace period `ms` from now, if that is sooner (a second stop()). */
  shortenGrace(ms: number): void {
    this.runs.shortenGrace(ms);
  }

  /** Stops this queue's parts: running jobs get `graceMs`, then are requeued. */
  async end(graceMs: number): Promise<StopResult> {
    this.pump?.stop();
    const ingressStopped = this.ingress?.stop();
    const { forced, requeued } = await this.runs.drain(graceMs);
    this.leases.stop();
    this.registryRefresh.stop();
    await this.pump?.drain();
    await ingressStopped;
    // After the jobs' last writes: their events are on the stream for the next leader.
    await this.webhooks?.stop();
    this.webhooks = undefined;
    this.runs.forgetDrain();
    await this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.started = false;
    return { forced, requeued };
  }

  /** Queues a fenced write; the pump sends it with the next batch. */
  write(op: CommitOp, job?: ActiveJob): Promise<boolean> {
    return this.pump!.write(op, job);
  }

  /** A running child whose parent is on another queue: its ending is relayed from the outbox. */
  noteCrossQueueChild(id: string): void {
    this.pump?.noteCrossQueueChild(id);
  }
}
