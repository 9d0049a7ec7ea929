// MemoryStore: the Store in one process, with RedisStore's semantics and no server. For a first
// run without Redis, single-machine deployments (`dataFile` keeps its jobs across restarts) and
// users' unit tests (an injected clock: `now`). Every operation runs to its end synchronously
// before its promise settles, so each is atomic, as a Lua script is on Redis; every status change
// goes through MemoryLifecycle.move (MemoryLifecycle.ts: THE GUARDED-MOVE RULE, the guards and the table it
// shares with lua/include/lcMove.lua).
//
// What cannot hold in one process: a worker in another process (nothing outside this process
// sees the store), and a Redis outage (there is none: client calls never reject with
// REDIS_UNAVAILABLE). Without `dataFile` a restart loses everything; with it, at most the
// writes of the last `flushMs` before a crash.

import { JobNotFoundError, type DataFileUnwritableError } from '../../errors.js';
import { assertQueueName } from '../keys.js';
import { mergeMachine } from '../mergeMachine.js';
import { listPages, type IndexPages } from '../listPages.js';
import {
  COUNTED,
  FINISHED,
  type AuditEntry,
  type BrokenEntry,
  type CancelOutcome,
  type ClaimRequest,
  type CommitOp,
  type CommitResult,
  type DeadLetter,
  deadLetterOf,
  type EnqueueResult,
  type FanState,
  type JobRecord,
  type JobStatus,
  type LeaseState,
  type ListQuery,
  type MachineInfo,
  type NewJob,
  type QueueCounts,
  type QueueEvent,
  type ReapResult,
  type RelayResult,
  type Store,
  type WorkWaiter,
} from '../types.js';
import { applyOps, checkCommit, claimJobs } from './commitOps.js';
import { enqueueJobs } from './enqueueJobs.js';
import * as fanOps from './fanOps.js';
import * as jobOps from './jobOps.js';
import * as leaseOps from './leaseOps.js';
import type { MemoryContext } from './MemoryContext.js';
import { toRecord, type MemoryJob } from './MemoryJob.js';
import { MemoryHookStore } from './MemoryHookStore.js';
import { resolveFailedRetention } from '../retention.js';
import { MemoryLifecycle } from './MemoryLifecycle.js';
import { QueueState } from './QueueState.js';
import { Bell, ControlBus, WorkMarker } from './signals.js';
import type { HookStore } from '../HookStore.js';
import { encodeData, readDataFile } from './snapshotFile.js';
import { DataFileWriter, type DataFileLogger } from './DataFileWriter.js';
import { DataFileLock } from './DataFileLock.js';
import { ResultBox } from './ResultBox.js';

export interface MemoryStoreOptions {
  /** The store's clock (ms since epoch): every stored time is on it. Default Date.now. */
  now?: () => number;
  /**
   * A file to keep the jobs in: loaded at start if it exists, written atomically after changes
   * (at most every `flushMs`), and at close().
   */
  dataFile?: string;
  /** How long after a change the data file is written. Default 100 ms. */
  flushMs?: number;
  /**
   * Where a failed write of the data file is told (pino's `(obj, msg)` form; a pino logger fits).
   * Default: standard error.
   */
  logger?: DataFileLogger;
  /** Named in logs and the Store's `prefix`. Default 'memory'. */
  prefix?: string;
  /** How long finished (done/cancelled) records are kept. Default 7 days. */
  finishedTtlMs?: number;
  /** How long failed records (dead letters, broken jobs) are kept. Default 7 days. */
  failedTtlMs?: number;
  /** The most dead letters (and, apart, broken jobs) a queue keeps; the oldest go first. Default 10,000. */
  deadLetterMax?: number;
  /** How long an idempotency key keeps naming its job. Default 7 days. */
  idempotencyTtlMs?: number;
  /** Approximate cap of each queue's event stream. Default 10,000. */
  eventsMaxLen?: number;
}

const DAY = 24 * 3600 * 1000;

/** Loud by default: a data file that cannot be written must not go unseen. */
const stderrLogger: DataFileLogger = {
  error: (_obj, msg) => console.error(msg),
  info: (_obj, msg) => console.error(msg),
};

export class MemoryStore implements Store {
  readonly kind = 'memory';
  readonly prefix: string;
  readonly finishedTtlMs: number;
  readonly idempotencyTtlMs: number;
  private readonly clock: () => number;
  private readonly eventsMaxLen: number;
  private queueData = new Map<string, QueueState>();
  private queueSet = new Set<string>();
  private machineRegistry = new Map<string, MachineInfo>();
  private readonly lc: MemoryLifecycle;
  private readonly markers = new Map<string, WorkMarker>();
  private readonly waiters = new Set<WorkWaiter>();
  private readonly control = new ControlBus();
  private readonly events = new Bell();
  private readonly results: ResultBox;
  /** This operation's clock reading, and the queues whose idle supervisors it wakes. */
  private opNow = 0;
  private readonly toWake = new Set<QueueState>();
  private readonly ctx: MemoryContext;
  /** The data file's writer, when there is one. */
  private readonly writer: DataFileWriter | undefined;
  /** This store's hold on the data file (DataFileLock.ts). */
  private readonly lock: DataFileLock | undefined;
  private closed = false;
  /** Lease requeues the reaper made, by real time: a single-flight lock per queue (reaplock). */
  private readonly reapLock = new Map<string, number>();

  constructor(options: MemoryStoreOptions = {}) {
    this.prefix = options.prefix ?? 'memory';
    this.clock = options.now ?? Date.now;
    this.results = new ResultBox(this.clock);
    this.finishedTtlMs = options.finishedTtlMs ?? 7 * DAY;
    // An idempotency key must not outlive the record it names.
    this.idempotencyTtlMs = Math.min(options.idempotencyTtlMs ?? 7 * DAY, this.finishedTtlMs);
    this.eventsMaxLen = options.eventsMaxLen ?? 10_000;
    const failed = resolveFailedRetention('MemoryStore', options);
    const flushMs = options.flushMs ?? 100;
    for (const [k, v] of Object.entries({
      finishedTtlMs: this.finishedTtlMs,
      idempotencyTtlMs: this.idempotencyTtlMs,
      eventsMaxLen: this.eventsMaxLen,
    }))
      if (!(v > 0)) throw new TypeError(`MemoryStore: ${k} must be a number > 0 (got ${v})`);
    if (!(flushMs >= 0)) throw new TypeError(`MemoryStore: flushMs must be a number >= 0`);
    const opNow = () => this.opNow;
    this.lc = new MemoryLifecycle({
      get now() {
        return opNow();
      },
      finishedTtlMs: this.finishedTtlMs,
      emit: (q, jobId, type, status) => this.emit(q, jobId, type, status),
      wake: (q) => this.toWake.add(q),
      publish: (q, w, m) => this.control.publish(q.name, w, m),
      pushResult: (q, job) => this.pushResult(q, job),
    });
    this.ctx = {
      lc: this.lc,
      get now() {
        return opNow();
      },
      finishedTtlMs: this.finishedTtlMs,
      ...failed,
      idempotencyTtlMs: this.idempotencyTtlMs,
      queue: (name) => this.queue(name),
      job: (q, id) => this.liveJob(q, id),
      publish: (q, w, m) => this.control.publish(q.name, w, m),
      emit: (q, jobId, type, status) => this.emit(q, jobId, type, status),
    };
    if (options.dataFile) {
      const file = options.dataFile;
      // Taken before the file is read: what another store holds is not ours to load or write.
      this.lock = DataFileLock.acquire(options.dataFile);
      let data;
      try {
        data = readDataFile(options.dataFile);
      } catch (err) {
        this.lock.release();
        throw err;
      }
      if (data) ({ queues: this.queueData, queueSet: this.queueSet, machines: this.machineRegistry } = data);
      this.writer = new DataFileWriter(
        options.dataFile,
        flushMs,
        () => this.encode(),
        options.logger ?? stderrLogger,
        // The lock file went with its directory: put it back with the data.
        () => this.lock?.restore(file),
      );
    }
  }

  /**
   * Runs one operation atomically: one clock reading, then `fn` to its end; then wakes the idle
   * supervisors it gave work to, and schedules the data file's write when `writes`.
   */
  private op<T>(fn: () => T, writes = true): Promise<T> {
    // A write the data file cannot keep is refused, not acknowledged (DataFileWriter.ts).
    if (writes && this.writer?.failure) return Promise.reject(this.writer.failure);
    try {
      this.opNow = this.clock();
      const out = fn();
      for (const q of this.toWake) this.marker(q.name).ring();
      this.toWake.clear();
      if (writes) this.writer?.changed();
      return Promise.resolve(out);
    } catch (err) {
      this.toWake.clear();
      return Promise.reject(err);
    }
  }

  private queue(name: string): QueueState {
    let q = this.queueData.get(name);
    if (!q) {
      assertQueueName(name);
      this.queueData.set(name, (q = new QueueState(name)));
    }
    return q;
  }

  private liveJob(q: QueueState | undefined, id: string): MemoryJob | undefined {
    const j = q?.jobs.get(id);
    if (j?.expiresAt !== undefined && j.expiresAt <= this.opNow) {
      q!.jobs.delete(id);
      return undefined;
    }
    return j;
  }

  private marker(queue: string): WorkMarker {
    let m = this.markers.get(queue);
    if (!m) this.markers.set(queue, (m = new WorkMarker()));
    return m;
  }

  private emit(q: QueueState, jobId: string, type: string, status: string): void {
    // "<ms>-<n>" as a Redis stream entry id: readers (the queues overview) seek by time.
    const ms = Math.max(this.opNow, Number(q.events.at(-1)?.cursor.split('-')[0] ?? 0));
    q.events.push({ cursor: `${ms}-${++q.eventSeq}`, jobId, type, status, at: this.opNow });
    // Approximately capped, as XADD MAXLEN ~.
    if (q.events.length > this.eventsMaxLen + 1000) q.events.splice(0, q.events.length - this.eventsMaxLen);
    this.events.ring();
  }

  private pushResult(q: QueueState, job: MemoryJob): void {
    this.results.push(q.name, job.watchers ?? [], toRecord(job, q.name), this.opNow);
  }

  /** The queue holding job `id` (`queue` when given and it holds it), searched in name order. */
  private find(id: string, queue?: string): { q: QueueState; job: MemoryJob } | undefined {
    const names = queue !== undefined ? [queue] : [...this.queueSet].sort();
    for (const name of names) {
      const q = this.queueData.get(name);
      const job = this.liveJob(q, id);
      if (job) return { q: q!, job };
    }
    return undefined;
  }

  /** The queue holding job `id`, or JOB_NOT_FOUND (with `queue` given: that queue). */
  private queueOf(id: string, queue?: string): QueueState {
    if (queue !== undefined) return this.queue(queue);
    const found = this.find(id);
    if (!found) throw new JobNotFoundError(id, queue);
    return found.q;
  }

  enqueue(queue: string, jobs: NewJob[]): Promise<EnqueueResult[]> {
    return this.op(() => {
      const out = enqueueJobs(this.ctx, queue, jobs);
      this.queueSet.add(queue);
      return out;
    });
  }

  commit(queue: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> {
    return this.op(() => {
      checkCommit(ops, claim);
      const q = this.queue(queue);
      const written = applyOps(this.lc, q, ops, this.opNow);
      let claimed: CommitResult['claimed'] = [];
      let nextDueAt: number | null = null;
      if (claim && claim.max > 0) {
        const c = claimJobs(this.lc, q, claim, this.opNow);
        claimed = c.claimed;
        nextDueAt = c.nextDueAt;
        // There may be more: let another idle supervisor wake and take some.
        if (c.more) this.toWake.add(q);
      }
      return { written, claimed, nextDueAt, redisNow: this.opNow };
    });
  }

  fanOpen(
    queue: string,
    parentId: string,
    group: string,
    total: number,
    policy: 'failFast' | 'collect',
    token?: string,
  ): Promise<FanState> {
    return this.op(() => fanOps.fanOpen(this.ctx, this.queue(queue), parentId, group, total, policy, token));
  }

  fanGroups(queue: string, parentId: string): Promise<{ group: string; total: number; finished: number }[]> {
    return this.op(() => {
      const q = this.queue(queue);
      return (this.liveJob(q, parentId)?.fanGroups ?? []).map((g) => ({
        group: g.group,
        total: g.total,
        finished: this.lc.liveFan(q, parentId, g.group)?.finished ?? 0,
      }));
    }, false);
  }

  childIds(queue: string, parentId: string, offset: number, limit: number): Promise<string[]> {
    return this.op(() => {
      const c = this.queue(queue).children.get(parentId);
      if (!c || (c.expiresAt !== undefined && c.expiresAt <= this.opNow)) return [];
      return c.ids.range(offset, limit).map((e) => e.member);
    }, false);
  }

  relayOutbox(queue: string): Promise<RelayResult> {
    return this.op(() => fanOps.relayOutbox(this.ctx, this.queue(queue)));
  }

  now(): Promise<number> {
    return Promise.resolve(this.clock());
  }

  readInbox(queue: string, id: string, from: number): Promise<string[]> {
    return this.op(() => this.liveJob(this.queue(queue), id)?.inbox?.slice(from) ?? [], false);
  }

  send(queue: string, id: string, event: string, eventType: string, eventId: string): Promise<boolean> {
    return this.op(() => jobOps.send(this.ctx, this.queue(queue), id, event, eventType, eventId));
  }

  heartbeat(queue: string, leases: { id: string; token: string }[], leaseMs: number): Promise<LeaseState[]> {
    return this.op(() => leaseOps.heartbeat(this.ctx, this.queue(queue), leases, leaseMs));
  }

  reap(queue: string, options: { maxLeaseRequeues: number; lockMs?: number }): Promise<ReapResult> {
    return this.op(() => {
      // Single flight per interval (a rate limit, on the process's own clock, not a stored time),
      // lapsing by the time the earliest lease passes, as reap-7.lua's lock does.
      const t = performance.now();
      const q = this.queue(queue);
      const lockedFor = (this.reapLock.get(queue) ?? -Infinity) - t;
      if (lockedFor > 0) return leaseOps.withNextDue(this.ctx, q, { requeued: [], failed: [] }, lockedFor);
      const r = leaseOps.reap(this.ctx, q, options.maxLeaseRequeues);
      const lockMs = options.lockMs ?? 100;
      const due = r.nextDueMs ?? 0;
      this.reapLock.set(queue, t + (due > 0 ? Math.min(lockMs, due) : lockMs));
      return r;
    });
  }

  /** Retention: deletes done and cancelled records older than `finishedTtlMs` (also run by reap). */
  sweep(queue: string): Promise<number> {
    return this.op(() => leaseOps.sweep(this.ctx, this.queue(queue)));
  }

  workWaiter(queue: string): WorkWaiter {
    assertQueueName(queue);
    const inner = this.marker(queue).waiter();
    const waiter: WorkWaiter = {
      wait: (ms) => inner.wait(ms),
      close: () => {
        this.waiters.delete(waiter);
        inner.close();
      },
    };
    if (this.closed) inner.close();
    else this.waiters.add(waiter);
    return waiter;
  }

  /**
   * The webhook dispatcher's state for one queue (src/webhooks/WebhookDispatcher.ts), in this
   * store and its data file, so a Supervisor on a MemoryStore delivers webhooks as on Redis.
   */
  webhookStore(queue: string): HookStore {
    assertQueueName(queue);
    return new MemoryHookStore({
      run: (fn, writes) => this.op(() => fn(this.queue(queue), this.ctx), writes),
      readEvents: (cursor, blockMs, count) => this.readEvents(queue, cursor, blockMs, count),
    });
  }

  subscribeControl(
    queue: string,
    workerId: string,
    onMessage: (message: string) => void,
  ): Promise<() => Promise<void>> {
    const off = this.control.subscribe(queue, workerId, onMessage);
    return Promise.resolve(async () => off());
  }

  getJob(id: string, queue?: string): Promise<JobRecord | null> {
    return this.op(() => {
      const found = this.find(id, queue);
      return found ? toRecord(found.job, found.q.name) : null;
    }, false);
  }

  jobStatus(id: string, queue: string): Promise<{ status: JobStatus; cancelRequested: boolean } | null> {
    return this.op(() => {
      const j = this.liveJob(this.queueData.get(queue), id);
      return j ? { status: j.status, cancelRequested: j.cancelRequested === true } : null;
    }, false);
  }

  getLog(id: string, queue?: string): Promise<AuditEntry[]> {
    return this.op(() => {
      const q = this.queueOf(id, queue);
      const j = this.liveJob(q, id);
      if (!j) throw new JobNotFoundError(id, q.name);
      return j.log.map((e) => ({ ...e }));
    }, false);
  }

  list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    let q: QueueState;
    try {
      q = this.queue(query.queue);
    } catch (err) {
      return Promise.reject(err);
    }
    const pages: IndexPages = {
      range: async (source, offset, count, rev) => {
        const z = 'index' in source ? q.index[source.index] : q.children.get(source.childrenOf)?.ids;
        return z ? z.range(offset, count, rev).map((e) => e.member) : [];
      },
      records: (ids) =>
        this.op(
          () =>
            ids.flatMap((id) => {
              const j = this.liveJob(q, id);
              return j ? [toRecord(j, q.name)] : [];
            }),
          false,
        ),
    };
    return listPages(pages, query);
  }

  cancel(id: string, queue?: string, reason = 'cancelled by request'): Promise<CancelOutcome> {
    return this.op(() => jobOps.cancel(this.ctx, this.queueOf(id, queue), id, reason));
  }

  deadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    return this.op(() => {
      const q = this.queue(queue);
      return q.index.dead.range(0, limit, true).flatMap(({ member }) => {
        const j = this.liveJob(q, member);
        if (!j) return [];
        return [deadLetterOf(toRecord(j, queue), queue)];
      });
    }, false);
  }

  broken(queue: string, limit: number): Promise<BrokenEntry[]> {
    return this.op(() => {
      const q = this.queue(queue);
      return q.index.broken.range(0, limit, true).map(({ member, score }) => {
        let reason = q.brokenWhy.get(member);
        if (reason === undefined) {
          const e = this.liveJob(q, member)?.error;
          reason = e ? (toRecord(this.liveJob(q, member)!, queue).error?.message ?? e) : 'unknown';
        }
        return { id: member, queue, reason, at: score };
      });
    }, false);
  }

  retryDeadLetter(id: string, queue?: string): Promise<void> {
    return this.op(() => jobOps.retryDead(this.ctx, this.queueOf(id, queue), id));
  }

  purgeDeadLetters(queue: string): Promise<number> {
    return this.op(() => leaseOps.purgeDead(this.ctx, this.queue(queue)));
  }

  purgeDeadLetter(id: string, queue?: string): Promise<boolean> {
    return this.op(() => leaseOps.purgeDead(this.ctx, this.queueOf(id, queue), id) === 1);
  }

  watchJob(id: string, queue: string, watcherId: string): Promise<JobRecord | null> {
    return this.op(() => {
      const q = this.queue(queue);
      const j = this.liveJob(q, id);
      if (!j) return null;
      if (!FINISHED.has(j.status)) {
        j.watchers ??= [];
        if (!j.watchers.includes(watcherId)) j.watchers.push(watcherId);
      }
      return toRecord(j, queue);
    }, false);
  }

  unwatchJob(id: string, queue: string, watcherId: string): Promise<void> {
    return this.op(() => {
      const j = this.liveJob(this.queueData.get(queue), id);
      if (!j?.watchers) return;
      j.watchers = j.watchers.filter((w) => w !== watcherId);
      if (j.watchers.length === 0) delete j.watchers;
    }, false);
  }

  readResults(queue: string, watcherId: string, blockMs: number): Promise<JobRecord[]> {
    return this.results.take(queue, watcherId, blockMs, () => this.closed);
  }

  endResults(_queue: string, _watcherId: string): void {
    // Nothing is held open per watcher: a blocked read ends at its own bound.
  }

  async readEvents(queue: string, cursor: string, blockMs: number, count = 500): Promise<QueueEvent[]> {
    const q = this.queue(queue);
    const since = cursorPair(cursor);
    const until = performance.now() + blockMs;
    for (;;) {
      const out: QueueEvent[] = [];
      for (const e of q.events) {
        const [ms, n] = cursorPair(e.cursor);
        if (ms > since[0] || (ms === since[0] && n > since[1])) out.push({ ...e });
        if (out.length >= count) break;
      }
      const left = until - performance.now();
      if (out.length > 0 || left <= 0 || this.closed) return out;
      await this.events.wait(left);
    }
  }

  lastEventCursor(queue: string): Promise<string> {
    return this.op(() => this.queue(queue).events.at(-1)?.cursor ?? '0-0', false);
  }

  /** A MemoryStore evicts nothing (Supervisor.start asks, as of a Redis server). */
  evictionPolicy(): Promise<string | null> {
    return Promise.resolve('noeviction');
  }

  /**
   * Not a Redis question: what a restart keeps is the store's own setting (`dataFile`, or
   * nothing), chosen by whoever made it. Answered yes so Supervisor.start does not warn of Redis.
   */
  appendOnly(): Promise<boolean | null> {
    return Promise.resolve(true);
  }

  registerMachines(machines: MachineInfo[], options: { replaceFingerprints?: boolean } = {}): Promise<void> {
    return this.op(() => {
      for (const m of machines)
        this.machineRegistry.set(
          m.name,
          mergeMachine(this.machineRegistry.get(m.name), m, options.replaceFingerprints ?? false),
        );
    });
  }

  countUnfinished(machine: string, version: number): Promise<number> {
    return this.op(() => {
      let n = 0;
      for (const name of this.queueSet) {
        const q = this.queueData.get(name);
        if (!q) continue;
        for (const j of q.jobs.values())
          if (!FINISHED.has(j.status) && j.machine === machine && j.version === version) n++;
      }
      return n;
    }, false);
  }

  registerQueue(queue: string): Promise<void> {
    return this.op(() => {
      assertQueueName(queue);
      this.queueSet.add(queue);
    });
  }

  machines(): Promise<MachineInfo[]> {
    return this.op(() => [...this.machineRegistry.values()].map((m) => structuredClone(m)), false);
  }

  queues(): Promise<string[]> {
    return this.op(() => [...this.queueSet].sort(), false);
  }

  counts(queue: string): Promise<QueueCounts> {
    return this.op(() => {
      const q = this.queue(queue);
      return Object.fromEntries(COUNTED.map((n) => [n, q.index[n].size])) as QueueCounts;
    }, false);
  }

  forgetQueue(queue: string): Promise<void> {
    return this.op(() => void this.queueSet.delete(queue));
  }

  /** When the queue's earliest delayed job (or parked job's wake time) is due, or null. */
  dueAt(queue: string): number | null {
    return this.queueData.get(queue)?.index.delayed.first()?.score ?? null;
  }

  /**
   * Wakes every idle supervisor of every queue, as if work had come: what a test's clock does
   * after moving time forward, so jobs it made due are claimed now rather than at the next look.
   */
  wakeAll(): void {
    for (const m of this.markers.values()) m.ring();
  }

  /**
   * Why this store cannot take writes now (its data file cannot be written), or undefined:
   * GET /healthz answers 503 with it.
   */
  unhealthy(): DataFileUnwritableError | undefined {
    return this.writer?.failure;
  }

  /** Writes the data file now (when there is one and something changed). */
  async flush(): Promise<void> {
    await this.writer?.flush();
  }

  private encode(): string {
    return encodeData({ queues: this.queueData, queueSet: this.queueSet, machines: this.machineRegistry });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.writer?.close();
    } finally {
      this.lock?.release();
    }
    this.closed = true;
    for (const w of [...this.waiters]) w.close();
    this.events.ring();
    this.results.wakeAll();
  }

  /** The last write, blocking: for a process that exits without awaiting close(). */
  flushSync(): void {
    this.writer?.flushSync();
  }
}

/** An event cursor "<ms>-<n>" as numbers, compared as Redis compares stream entry ids. */
function cursorPair(cursor: string): [number, number] {
  const [ms, n] = cursor.split('-').map(Number);
  return [Number.isFinite(ms) ? ms! : 0, Number.isFinite(n) ? n! : 0];
}
