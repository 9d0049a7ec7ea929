// What MemoryStore's role methods run on: its state (MemoryCore.ts) and settings, what it reports
// in place of a server's checks (the ServerChecks and HealthReport roles), and closing it with
// its data file. MemoryStore.ts holds the other roles (as RedisStoreBase.ts is to RedisStore.ts).

import type { DataFileUnwritableError } from '../../errors.js';
import { MemoryCore } from './MemoryCore.js';
import type { MemoryStoreOptions } from './memoryStoreOptions.js';

export class MemoryStoreBase {
  readonly kind = 'memory';
  readonly prefix: string;
  readonly finishedTtlMs: number;
  readonly idempotencyTtlMs: number;
  protected readonly core: MemoryCore;

  constructor(options: MemoryStoreOptions = {}) {
    this.core = new MemoryCore(options);
    ({
      prefix: this.prefix,
      finishedTtlMs: this.finishedTtlMs,
      idempotencyTtlMs: this.idempotencyTtlMs,
    } = this.core);
  }

  // ServerChecks, HealthReport

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

  /** Its data file's format is checked where it is loaded (snapshotFile.ts): nothing to do here. */
  checkFormat(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Why this store cannot take writes now (its data file cannot be written), or undefined:
   * GET /healthz answers 503 with it.
   */
  unhealthy(): DataFileUnwritableError | undefined {
    return this.core.writer?.failure;
  }

  // Beyond the roles: for tests, and for a process that owns its data file

  /** When the queue's earliest delayed job (or parked job's wake time) is due, or null. */
  dueAt(queue: string): number | null {
    return this.core.queueData.get(queue)?.index.delayed.first()?.score ?? null;
  }

  /**
   * Wakes every idle supervisor of every queue, as if work had come: what a test's clock does
   * after moving time forward, so jobs it made due are claimed now rather than at the next look.
   */
  wakeAll(): void {
    for (const m of this.core.markers.values()) m.ring();
  }

  /** Writes the data file now (when there is one and something changed). */
  async flush(): Promise<void> {
    await this.core.writer?.flush();
  }

  async close(): Promise<void> {
    if (this.core.closed) return;
    try {
      await this.core.writer?.close();
    } finally {
      this.core.lock?.release();
    }
    this.core.closed = true;
    for (const w of [...this.core.waiters]) w.close();
    this.core.events.ring();
    this.core.results.wakeAll();
  }

  /** The last write, blocking: for a process that exits without awaiting close(). */
  flushSync(): void {
    this.core.writer?.flushSync();
  }
}
