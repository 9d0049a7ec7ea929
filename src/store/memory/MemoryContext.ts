// What MemoryStore's operations share while one of them runs: the lifecycle, the store's clock
// reading for this operation (one reading per operation, as a Lua script reads TIME once), the
// retention settings, and the queues.

import type { MemoryLifecycle } from './MemoryLifecycle.js';
import type { MemoryJob } from './MemoryJob.js';
import type { QueueState } from './QueueState.js';

export interface MemoryContext {
  readonly lc: MemoryLifecycle;
  /** The store's clock, read once when the operation began. */
  readonly now: number;
  readonly finishedTtlMs: number;
  /** Retention of failed records (dead letters, broken jobs), and the cap of each set. */
  readonly failedTtlMs: number;
  readonly deadLetterMax: number;
  readonly idempotencyTtlMs: number;
  /** The queue's data, made on first use. */
  queue(name: string): QueueState;
  /** A job's record unless it has expired (a purged dead letter past its retention). */
  job(q: QueueState, id: string): MemoryJob | undefined;
  publish(q: QueueState, workerId: string, message: string): void;
  emit(q: QueueState, jobId: string, type: string, status: string): void;
}
