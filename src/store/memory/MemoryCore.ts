// What every one of MemoryStore's operations runs on: the queues, the registry, the lifecycle,
// the signals that wake waiters, the data file, and `op`, which makes each operation atomic (one
// clock reading, then the operation to its end synchronously). MemoryStore.ts holds the role
// methods, most of them in files by role (memoryReads.ts, memoryWork.ts, memoryRegistry.ts,
// memoryWatch.ts), each taking this core.

import type { Seen } from '../fleetView.js';
import { JobNotFoundError } from '../../errors.js';
import { assertQueueName } from '../keys.js';
import type { MachineInfo } from '../types.js';
import type { MemoryContext } from './MemoryContext.js';
import { toRecord, type MemoryJob } from './MemoryJob.js';
import { resolveRetention } from '../retention.js';
import { MemoryLifecycle } from './MemoryLifecycle.js';
import { QueueState } from './QueueState.js';
import { Bell, ControlBus, WorkMarker } from './signals.js';
import { encodeData, readDataFile } from './snapshotFile.js';
import { DataFileWriter, type DataFileLogger } from './DataFileWriter.js';
import { DataFileLock } from './DataFileLock.js';
import { ResultBox } from './ResultBox.js';
import { ScheduleTable } from './ScheduleTable.js';
import type { MemoryStoreOptions } from './memoryStoreOptions.js';

/** Loud by default: a data file that cannot be written must not go unseen. */
const stderrLogger: DataFileLogger = {
  error: (_obj, msg) => console.error(msg),
  info: (_obj, msg) => console.error(msg),
};

export class MemoryCore {
  readonly prefix: string;
  readonly finishedTtlMs: number;
  readonly idempotencyTtlMs: number;
  readonly clock: () => number;
  private readonly eventsMaxLen: number;
  queueData = new Map<string, QueueState>();
  /** Each partitioned queue's partition count (Registry.partitions), kept in the data file. */
  partitionCounts = new Map<string, number>();
  /** The schedules (roles/Schedules.ts; memorySchedules.ts), kept in the data file. */
  schedules = new ScheduleTable();
  queueSet = new Set<string>();
  machineRegistry = new Map<string, MachineInfo>();
  readonly lc: MemoryLifecycle;
  readonly markers = new Map<string, WorkMarker>();
  readonly waiters = new Set<{ close(): void }>();
  readonly control = new ControlBus();
  readonly events = new Bell();
  readonly results: ResultBox;
  /** This operation's clock reading, and the queues whose idle supervisors it wakes. */
  opNow = 0;
  readonly toWake = new Set<QueueState>();
  readonly ctx: MemoryContext;
  /** The data file's writer, when there is one. */
  readonly writer: DataFileWriter | undefined;
  /** This store's hold on the data file (DataFileLock.ts). */
  readonly lock: DataFileLock | undefined;
  closed = false;
  /** Lease requeues the reaper made, by real time: a single-flight lock per queue (reaplock). */
  readonly reapLock = new Map<string, number>();
  /** The Fleet role: each supervisor's last announce (memoryFleet.ts; not kept in the data file). */
  readonly fleet = new Map<string, Seen>();

  constructor(options: MemoryStoreOptions = {}) {
    this.prefix = options.prefix ?? 'memory';
    this.clock = options.now ?? Date.now;
    this.results = new ResultBox(this.clock);
    const retention = resolveRetention('MemoryStore', options);
    this.finishedTtlMs = retention.finishedTtlMs;
    this.idempotencyTtlMs = retention.idempotencyTtlMs;
    this.eventsMaxLen = retention.eventsMaxLen;
    const flushMs = options.flushMs ?? 100;
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
      failedTtlMs: retention.failedTtlMs,
      deadLetterMax: retention.deadLetterMax,
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
      if (data)
        ({
          queues: this.queueData,
          queueSet: this.queueSet,
          machines: this.machineRegistry,
          partitions: this.partitionCounts,
          schedules: this.schedules,
        } = data);
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
  op<T>(fn: () => T, writes = true): Promise<T> {
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

  queue(name: string): QueueState {
    let q = this.queueData.get(name);
    if (!q) {
      assertQueueName(name);
      this.queueData.set(name, (q = new QueueState(name)));
    }
    return q;
  }

  liveJob(q: QueueState | undefined, id: string): MemoryJob | undefined {
    const j = q?.jobs.get(id);
    if (j?.expiresAt !== undefined && j.expiresAt <= this.opNow) {
      q!.jobs.delete(id);
      return undefined;
    }
    return j;
  }

  marker(queue: string): WorkMarker {
    let m = this.markers.get(queue);
    if (!m) this.markers.set(queue, (m = new WorkMarker()));
    return m;
  }

  emit(q: QueueState, jobId: string, type: string, status: string): void {
    // "<ms>-<n>" as a Redis stream entry id: readers (the queues overview) seek by time.
    const ms = Math.max(this.opNow, Number(q.events.at(-1)?.cursor.split('-')[0] ?? 0));
    q.events.push({ cursor: `${ms}-${++q.eventSeq}`, jobId, type, status, at: this.opNow });
    // Approximately capped, as XADD MAXLEN ~.
    if (q.events.length > this.eventsMaxLen + 1000) q.events.splice(0, q.events.length - this.eventsMaxLen);
    this.events.ring();
  }

  pushResult(q: QueueState, job: MemoryJob): void {
    this.results.push(q.name, job.watchers ?? [], toRecord(job, q.name), this.opNow);
  }

  /** The queue holding job `id` (`queue` when given and it holds it), searched in name order. */
  find(id: string, queue?: string): { q: QueueState; job: MemoryJob } | undefined {
    const names = queue !== undefined ? [queue] : [...this.queueSet].sort();
    for (const name of names) {
      const q = this.queueData.get(name);
      const job = this.liveJob(q, id);
      if (job) return { q: q!, job };
    }
    return undefined;
  }

  /** The queue holding job `id`, or JOB_NOT_FOUND (with `queue` given: that queue). */
  queueOf(id: string, queue?: string): QueueState {
    if (queue !== undefined) return this.queue(queue);
    const found = this.find(id);
    if (!found) throw new JobNotFoundError(id, queue);
    return found.q;
  }

  encode(): string {
    return encodeData({
      queues: this.queueData,
      queueSet: this.queueSet,
      machines: this.machineRegistry,
      partitions: this.partitionCounts,
      schedules: this.schedules,
    });
  }
}
