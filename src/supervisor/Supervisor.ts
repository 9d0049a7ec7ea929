// The supervisor: claims jobs from the queues it serves, runs them, and writes their states
// back. It owns the start and the stop, and the checks made once; each queue served is a lane
// (QueueLane.ts: its pump, running jobs, leases, outbox relay, ingress, webhooks and control
// channel). The lanes share the slots and the claim turns (ClaimShare.ts: `concurrency` is the
// supervisor's, the order weighted or strict) and one wait for work (WorkSignals.ts: ONE
// blocking connection, however many queues).
//
// Modes:
//   RUNNING   start() .. stop(): the pumps claim and write, timers extend leases, reap expired
//             ones and abort attempts past their deadline; control messages reach running jobs.
//   STOPPING  stop(): no more claims on any queue; running jobs get the grace period, then are
//             aborted with 'shutdown' and requeued at once (not after lease expiry); the pumps
//             drain.
//   STOPPED   before start() and after stop(); start() again builds fresh pumps, a fresh wait
//             for work (with its own blocking connection), timers and control subscriptions.

import type { Logger } from 'pino';
import { hasServerChecks, type Store } from '../store/types.js';
import { Registry } from '../runtime/registry.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import { SandboxError } from '../errors.js';
import { inSandboxThread } from '../runtime/sandbox/sandboxThreadMark.js';
import { checkRedisSettings } from './checkRedisSettings.js';
import { checkDefinitions } from './checkDefinitions.js';
import { checkRetention } from './checkRetention.js';
import { logConnectionChanges } from './logConnectionChanges.js';
import { combineObservers } from '../runtime/JobObserver.js';
import { attemptTracer } from '../tracing/attemptTracer.js';
import { listenForStrayErrors } from './strayErrors.js';
import {
  resolveSupervisorOptions,
  type StopResult,
  type SupervisorOptions,
  type SupervisorSettings,
} from './supervisorOptions.js';
import { CODE } from '../errorCodes.js';
import { QueueLane, type LaneShared } from './QueueLane.js';
import { ClaimShare } from './ClaimShare.js';
import { WorkSignals } from './WorkSignals.js';
import { partitionQueue } from '../store/partitions.js';
import { hasSchedules } from '../store/types.js';
import { ScheduleLoop } from './ScheduleLoop.js';
import { FleetPresence } from './FleetPresence.js';
import { MachineFactsLookup } from '../client/MachineFactsLookup.js';
import { QueueRouter } from '../client/QueueRouter.js';

export type { StopResult, SupervisorOptions, ServedQueue } from './supervisorOptions.js';

export class Supervisor {
  /** The first queue served (the only one unless `queues` names several). */
  readonly queue: string;
  /** Every queue served, in the order given. */
  readonly queues: readonly string[];
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
  private readonly settings: SupervisorSettings;
  /** The lanes of the queues served, and of their partitions once start() has read them. */
  private lanes: QueueLane[];
  /** Every lane made, by stored queue (a partition's lane is made at the first start that sees it). */
  private readonly laneByQueue = new Map<string, QueueLane>();
  private state: 'stopped' | 'starting' | 'running' | 'stopping' = 'stopped';
  /** The start() or stop() in progress, which another call waits for. */
  private transition: Promise<unknown> | undefined;
  /** What the lanes share while started. */
  private shared: LaneShared | undefined;
  private unwatchConnection: (() => void) | undefined;
  /** Turns this supervisor's share of the stray-error handlers off (set while started). */
  private unlistenStray: (() => void) | undefined;
  /** Fires the store's schedules while started (ScheduleLoop.ts), unless opted out. */
  private scheduleLoop: ScheduleLoop | undefined;
  /** Announces this supervisor to the fleet while started (FleetPresence.ts). */
  private presence: FleetPresence | undefined;

  constructor(options: SupervisorOptions) {
    const o = resolveSupervisorOptions(options);
    this.settings = o;
    this.store = o.store;
    this.registry = new Registry(o.jobs);
    this.queue = o.queue;
    this.queues = o.queues.map((q) => q.name);
    this.workerId = o.workerId;
    this.log = o.log;
    this.concurrency = o.concurrency;
    this.leaseMs = o.leaseMs;
    this.heartbeatMs = o.heartbeatMs;
    this.reaperIntervalMs = o.reaperIntervalMs;
    this.maxLeaseRequeues = o.maxLeaseRequeues;
    this.idleWaitMs = o.idleWaitMs;
    this.maxPayloadBytes = o.maxPayloadBytes;
    this.lanes = o.queues.map((q) => this.lane(q.name, q.weight));
  }

  private lane(queue: string, weight: number, partitions = 1): QueueLane {
    let lane = this.laneByQueue.get(queue);
    if (!lane)
      this.laneByQueue.set(queue, (lane = new QueueLane(this.settings, queue, weight, this.registry)));
    lane.weight = weight;
    lane.partitions = partitions;
    return lane;
  }

  /**
   * The lanes to serve: each queue's, and for a partitioned queue (docs/partitions.md) one per
   * partition, the queue's weight split evenly between them. The queue's own name stays served
   * (a job routed by a client that read the count before it was set lands there).
   */
  private async servedLanes(): Promise<QueueLane[]> {
    const lanes: QueueLane[] = [];
    for (const { name, weight } of this.settings.queues) {
      const n = await this.store.partitions(name);
      lanes.push(this.lane(name, weight / n, n));
      for (let i = 0; n > 1 && i < n; i++) lanes.push(this.lane(partitionQueue(name, i), weight / n, n));
    }
    return lanes;
  }

  /** All a job's runner may use of this supervisor, for jobs of its first queue. */
  get attemptHost(): AttemptHost {
    return this.lanes[0]!.attemptHost;
  }

  /**
   * Redis time minus this worker's wall clock now (ms). Durable times (timers, wake-ups) are
   * kept on Redis's clock, never a worker's: a skewed worker neither wakes a parked job early
   * nor late.
   */
  get clockOffset(): number {
    return this.lanes[0]!.clockOffset;
  }

  /** Jobs running now, over every queue served. */
  get inFlight(): number {
    return this.lanes.reduce((n, lane) => n + lane.inFlight, 0);
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
    const o = this.settings;
    // Before anything is written: a definition none of whose jobs could run here (a pipeline on
    // an unsupported XState) refuses the start rather than fail or corrupt its jobs later.
    this.registry.preflight();
    checkRetention(this.store, this.leaseMs, this.reaperIntervalMs);
    this.unwatchConnection = logConnectionChanges(this.store, this.log);
    try {
      // Before anything is written: a store of another data format is refused (one read).
      if (hasServerChecks(this.store)) await this.store.checkFormat();
      await checkRedisSettings(this.store, this.log, { allowEviction: o.allowEviction, queue: this.queue });
      await checkDefinitions(this.store, this.registry.info(), o.acceptChangedMachines, this.log);
    } catch (err) {
      this.unwatchConnection?.();
      throw err;
    }
    this.lanes = await this.servedLanes();
    // Loaded here, not per job: @opentelemetry/api is an optional dependency (import()ed once).
    const observer = combineObservers([...o.observers, o.tracing ? await attemptTracer() : undefined]);
    // Before the first claim: a job's stray error MUST find the handlers in place.
    if (o.isolateStrayErrors) this.unlistenStray = listenForStrayErrors(this.log);
    this.shared = {
      share: new ClaimShare(this.concurrency, o.queueOrder, o.leadMs > 0 ? o.holdMax : 0),
      signals: new WorkSignals(this.store.workWaiter(), this.idleWaitMs),
      observer,
      several: this.lanes.length > 1,
    };
    for (const lane of this.lanes) await lane.begin(this.shared);
    for (const lane of this.lanes) lane.claim();
    if (o.schedules && hasSchedules(this.store)) {
      this.scheduleLoop = new ScheduleLoop({
        store: this.store,
        facts: new MachineFactsLookup(this.store, undefined, this.registry),
        router: new QueueRouter(this.store),
        maxPayloadBytes: this.maxPayloadBytes,
        log: this.log,
        leaseMs: o.schedules.leaseMs,
        bufferRecheckMs: o.schedules.bufferRecheckMs,
      });
      this.scheduleLoop.start();
    }
    this.presence = new FleetPresence({
      store: this.store,
      workerId: this.workerId,
      queues: this.queues,
      concurrency: this.concurrency,
      heartbeatMs: this.heartbeatMs,
      log: this.log,
      running: () => this.lanes.flatMap((lane) => lane.runningJobs()),
    });
    this.presence.start();
    this.log.info({ queues: this.queues, workerId: this.workerId }, 'supervisor started');
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
      for (const lane of this.lanes) lane.shortenGrace(options.graceMs ?? 30_000);
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
    // No queue claims once stop began (a lane still draining must not let another claim).
    for (const lane of this.lanes) lane.stopClaiming();
    await this.scheduleLoop?.stop();
    this.scheduleLoop = undefined;
    const ends = await Promise.all(this.lanes.map((lane) => lane.end(graceMs)));
    this.shared?.signals.close();
    this.shared = undefined;
    this.unwatchConnection?.();
    this.unwatchConnection = undefined;
    // After the drain: the attempts it waited for are still covered to their ending writes.
    this.unlistenStray?.();
    this.unlistenStray = undefined;
    await this.presence?.stop();
    this.presence = undefined;
    const forced = ends.some((e) => e.forced);
    const requeued = ends.reduce((n, e) => n + e.requeued, 0);
    this.log.info({ forced, requeued }, 'supervisor stopped');
    return { forced, requeued };
  }
}
