// MemoryStore's options (re-exported by MemoryStore.ts, and by the package as MemoryStoreOptions).

import type { DataFileLogger } from './DataFileWriter.js';
import type { RetentionOptions } from '../retention.js';

export interface MemoryStoreOptions extends RetentionOptions {
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
}
