// MemoryStore's options (re-exported by MemoryStore.ts, and by the package as MemoryStoreOptions).

import type { DataFileLogger } from './DataFileWriter.js';

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
