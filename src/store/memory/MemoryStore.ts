// MemoryStore: the Store in one process, with RedisStore's semantics and no server. For a first
// run without Redis, single-machine deployments (`dataFile` keeps its jobs across restarts) and
// users' unit tests (an injected clock: `now`). Every operation runs to its end synchronously
// before its promise settles, so each is atomic, as a Lua script is on Redis; every status change
// goes through MemoryLifecycle.move (MemoryLifecycle.ts: THE GUARDED-MOVE RULE, the guards and the table it
// shares with lua/include/lcMove.lua).
//
// The state and `op` live in MemoryCore.ts; the settings, the ServerChecks and HealthReport roles
// and closing in MemoryStoreBase.ts; the role methods with more than a line in files by role
// (memoryWork.ts, memoryReads.ts, memoryWatch.ts, memoryRegistry.ts).
//
// What cannot hold in one process: a worker in another process (nothing outside this process
// sees the store), and a Redis outage (there is none: client calls never reject with
// REDIS_UNAVAILABLE). Without `dataFile` a restart loses everything; with it, at most the
// writes of the last `flushMs` before a crash.

import { assertQueueName } from '../keys.js';
import * as flowOps from './flowOps.js';
import type {
  AuditEntry,
  BrokenEntry,
  CancelOutcome,
  ClaimRequest,
  CommitOp,
  CommitResult,
  ControlChannel,
  DeadLetter,
  EnqueueResult,
  FanState,
  HealthReport,
  JobRecord,
  JobStatus,
  LeaseState,
  ListQuery,
  MachineInfo,
  NewJob,
  QueueCounts,
  QueueEvent,
  ReapResult,
  RelayResult,
  ServerChecks,
  Store,
  WebhookHost,
  QueuesWaiter,
  ScheduleClaim,
  ScheduleWrite,
  ScheduleStatePart,
  Schedules,
  StoredSchedule,
  QueueFlow,
  QueueFlowChange,
} from '../types.js';
import { enqueueJobs } from './enqueueJobs.js';
import * as fanOps from './fanOps.js';
import * as jobOps from './jobOps.js';
import * as leaseOps from './leaseOps.js';
import { MemoryHookStore } from './MemoryHookStore.js';
import type { HookStore } from '../HookStore.js';
import type { MinuteTally } from '../queueSeries.js';
import type { MinuteTallies } from '../roles/MinuteTallies.js';
import { MinuteTallyState } from './MinuteTallyState.js';
import { MemoryStoreBase } from './MemoryStoreBase.js';
import * as reads from './memoryReads.js';
import { searchPages } from '../search/searchPages.js';
import { storedQueues } from '../partitions.js';
import type { SearchPage, SearchQuery } from '../search/searchQuery.js';
import type { JobSearch } from '../roles/JobSearch.js';
import type { Fleet, FleetWorker, WorkerFacts } from '../roles/Fleet.js';
import * as fleet from './memoryFleet.js';
import * as work from './memoryWork.js';
import * as watch from './memoryWatch.js';
import * as registry from './memoryRegistry.js';
import * as schedules from './memorySchedules.js';

export type { MemoryStoreOptions } from './memoryStoreOptions.js';

/** Every required role, and the optional WebhookHost, ControlChannel, ServerChecks, HealthReport, Schedules, MinuteTallies. */
export class MemoryStore
  extends MemoryStoreBase
  implements
    Store,
    WebhookHost,
    ControlChannel,
    ServerChecks,
    HealthReport,
    Schedules,
    JobSearch,
    Fleet,
    MinuteTallies
{
  // StoreHandle

  now(): Promise<number> {
    return Promise.resolve(this.core.clock());
  }

  // WorkQueue

  enqueue(queue: string, jobs: NewJob[]): Promise<EnqueueResult[]> {
    const core = this.core;
    return core.op(() => {
      const out = enqueueJobs(core.ctx, queue, jobs);
      core.queueSet.add(queue);
      return out;
    });
  }

  commit(queue: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> {
    return work.commit(this.core, queue, ops, claim);
  }

  heartbeat(queue: string, leases: { id: string; token: string }[], leaseMs: number): Promise<LeaseState[]> {
    return this.core.op(() => leaseOps.heartbeat(this.core.ctx, this.core.queue(queue), leases, leaseMs));
  }

  reap(queue: string, options: { maxLeaseRequeues: number; lockMs?: number }): Promise<ReapResult> {
    return work.reap(this.core, queue, options);
  }

  /** Retention: deletes done and cancelled records older than `finishedTtlMs` (also run by reap). */
  sweep(queue: string): Promise<number> {
    return this.core.op(() => leaseOps.sweep(this.core.ctx, this.core.queue(queue)));
  }

  workWaiter(): QueuesWaiter {
    return work.workWaiter(this.core);
  }

  readInbox(id: string, queue: string, from: number): Promise<string[]> {
    return this.core.op(() => this.core.liveJob(this.core.queue(queue), id)?.inbox?.slice(from) ?? [], false);
  }

  // FanOut

  fanOpen(
    parentId: string,
    queue: string,
    group: string,
    total: number,
    policy: 'failFast' | 'collect',
    token?: string,
  ): Promise<FanState> {
    const core = this.core;
    return core.op(() => fanOps.fanOpen(core.ctx, core.queue(queue), parentId, group, total, policy, token));
  }

  relayOutbox(queue: string): Promise<RelayResult> {
    return this.core.op(() => fanOps.relayOutbox(this.core.ctx, this.core.queue(queue)));
  }

  fanGroups(parentId: string, queue: string): Promise<{ group: string; total: number; finished: number }[]> {
    return reads.fanGroups(this.core, queue, parentId);
  }

  childIds(parentId: string, queue: string, offset: number, limit: number): Promise<string[]> {
    return reads.childIds(this.core, queue, parentId, offset, limit);
  }

  // JobRecords

  getJob(id: string, queue?: string): Promise<JobRecord | null> {
    return reads.getJob(this.core, id, queue);
  }

  queueOf(id: string): Promise<string | null> {
    return reads.queueOf(this.core, id);
  }

  jobStatus(id: string, queue: string): Promise<{ status: JobStatus; cancelRequested: boolean } | null> {
    return reads.jobStatus(this.core, id, queue);
  }

  getLog(id: string, queue?: string): Promise<AuditEntry[]> {
    return reads.getLog(this.core, id, queue);
  }

  list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    return reads.list(this.core, query);
  }

  announce(facts: WorkerFacts): Promise<void> {
    return fleet.announce(this.core, facts);
  }

  workers(): Promise<FleetWorker[]> {
    return fleet.workers(this.core);
  }

  /** JobSearch: THE BOUNDED SCAN (search/searchPages.ts) over the queues' indexes. */
  searchJobs(query: SearchQuery): Promise<SearchPage<JobRecord>> {
    const source = {
      queues: () => storedQueues(this),
      pagesOf: (name: string) => reads.pagesOf(this.core, this.core.queue(name)),
    };
    return searchPages(source, query);
  }

  cancel(id: string, queue?: string, reason = 'cancelled by request'): Promise<CancelOutcome> {
    return this.core.op(() => jobOps.cancel(this.core.ctx, this.core.queueOf(id, queue), id, reason));
  }

  send(id: string, queue: string, event: string, eventType: string, eventId: string): Promise<boolean> {
    const core = this.core;
    return core.op(() => jobOps.send(core.ctx, core.queue(queue), id, event, eventType, eventId));
  }

  // DeadLetters

  deadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    return reads.deadLetters(this.core, queue, limit);
  }

  broken(queue: string, limit: number): Promise<BrokenEntry[]> {
    return reads.broken(this.core, queue, limit);
  }

  retryDeadLetter(id: string, queue?: string): Promise<void> {
    return this.core.op(() => jobOps.retryDead(this.core.ctx, this.core.queueOf(id, queue), id));
  }

  purgeDeadLetters(queue: string): Promise<number> {
    return this.core.op(() => leaseOps.purgeDead(this.core.ctx, this.core.queue(queue)));
  }

  purgeDeadLetter(id: string, queue?: string): Promise<boolean> {
    return this.core.op(() => leaseOps.purgeDead(this.core.ctx, this.core.queueOf(id, queue), id) === 1);
  }

  // ResultWatch

  watchJob(id: string, queue: string, watcherId: string): Promise<JobRecord | null> {
    return watch.watchJob(this.core, id, queue, watcherId);
  }

  unwatchJob(id: string, queue: string, watcherId: string): Promise<void> {
    return watch.unwatchJob(this.core, id, queue, watcherId);
  }

  readResults(queue: string, watcherId: string, blockMs: number): Promise<JobRecord[]> {
    return this.core.results.take(queue, watcherId, blockMs, () => this.core.closed);
  }

  endResults(_queue: string, _watcherId: string): void {
    // Nothing is held open per watcher: a blocked read ends at its own bound.
  }

  // EventLog

  readEvents(queue: string, cursor: string, blockMs: number, count = 500): Promise<QueueEvent[]> {
    return watch.readEvents(this.core, queue, cursor, blockMs, count);
  }

  lastEventCursor(queue: string): Promise<string> {
    return watch.lastEventCursor(this.core, queue);
  }

  // Registry

  registerMachines(machines: MachineInfo[], options: { replaceFingerprints?: boolean } = {}): Promise<void> {
    return registry.registerMachines(this.core, machines, options);
  }

  machines(): Promise<MachineInfo[]> {
    return registry.machines(this.core);
  }

  countUnfinished(machine: string, version: number): Promise<number> {
    return registry.countUnfinished(this.core, machine, version);
  }

  registerQueue(queue: string): Promise<void> {
    return registry.registerQueue(this.core, queue);
  }

  queues(): Promise<string[]> {
    return registry.queues(this.core);
  }

  partitions(queue: string): Promise<number> {
    return registry.partitions(this.core, queue);
  }

  setPartitions(queue: string, partitions: number): Promise<void> {
    return registry.setPartitions(this.core, queue, partitions);
  }

  copyIdempotencyKeys(queue: string, to: (key: string) => string): Promise<number> {
    return registry.copyIdempotencyKeys(this.core, queue, to);
  }

  forgetQueue(queue: string): Promise<void> {
    return registry.forgetQueue(this.core, queue);
  }

  counts(queue: string): Promise<QueueCounts> {
    return registry.counts(this.core, queue);
  }

  // FlowControl

  /** Pauses, resumes or sets the limits of one stored queue (FlowState.ts). */
  setQueueFlow(queue: string, change: QueueFlowChange): Promise<void> {
    assertQueueName(queue);
    return flowOps.setQueueFlow(this.core, queue, change);
  }

  /** The flow gate of one stored queue and its current use. */
  queueFlow(queue: string): Promise<QueueFlow> {
    assertQueueName(queue);
    return flowOps.queueFlow(this.core, queue);
  }

  /** Pauses or resumes one concurrency key of a stored queue (FlowState.ts). */
  setKeyPaused(queue: string, key: string, paused: boolean): Promise<void> {
    assertQueueName(queue);
    return flowOps.setKeyPaused(this.core, queue, key, paused);
  }

  // MinuteTallies

  /** `count` minutes of a stored queue's tallies from minute `first` (MinuteTallyState.ts). */
  minuteTallies(queue: string, first: number, count: number): Promise<MinuteTally[]> {
    assertQueueName(queue);
    // A read makes no queue: one never written to answers empty minutes.
    return this.core.op(
      () => (this.core.queueData.get(queue)?.tallies ?? new MinuteTallyState()).read(first, count),
      false,
    );
  }

  // WebhookHost, ControlChannel

  /**
   * The webhook dispatcher's state for one queue (src/webhooks/WebhookDispatcher.ts), in this
   * store and its data file, so a Supervisor on a MemoryStore delivers webhooks as on Redis.
   */
  webhookStore(queue: string): HookStore {
    assertQueueName(queue);
    const core = this.core;
    return new MemoryHookStore({
      run: (fn, writes) => core.op(() => fn(core.queue(queue), core.ctx), writes),
      readEvents: (cursor, blockMs, count) => this.readEvents(queue, cursor, blockMs, count),
    });
  }

  subscribeControl(
    queue: string,
    workerId: string,
    onMessage: (message: string) => void,
  ): Promise<() => Promise<void>> {
    const off = this.core.control.subscribe(queue, workerId, onMessage);
    return Promise.resolve(async () => off());
  }

  // Schedules (memorySchedules.ts)

  putSchedule(
    id: string,
    body: string,
    dueAt: number | null,
    expectedRev?: number,
    _fromLoop?: boolean,
    part?: ScheduleStatePart,
  ): Promise<number | null> {
    return schedules.putSchedule(this.core, id, body, dueAt, expectedRev, part);
  }

  putSchedules(writes: ScheduleWrite[]): Promise<(number | null)[]> {
    return schedules.putSchedules(this.core, writes);
  }

  getSchedule(id: string): Promise<StoredSchedule | null> {
    return schedules.getSchedule(this.core, id);
  }

  listSchedules(): Promise<StoredSchedule[]> {
    return schedules.listSchedules(this.core);
  }

  removeSchedule(id: string): Promise<boolean> {
    return schedules.removeSchedule(this.core, id);
  }

  claimSchedules(max: number, leaseMs: number): Promise<ScheduleClaim> {
    return schedules.claimSchedules(this.core, max, leaseMs);
  }

  wakeSchedules(ids: string[]): Promise<number> {
    return schedules.wakeSchedules(this.core, ids);
  }
}
