// What the store conformance suite needs of a backend: a fresh, empty store per test (a fresh
// key prefix on Redis, a new instance in memory), and what the backend can or cannot do.

import type { Store } from '../../../src/store/types.js';

export interface StoreOptions {
  finishedTtlMs?: number;
  failedTtlMs?: number;
  deadLetterMax?: number;
}

export interface StoreFactory {
  name: string;
  /** A fresh, empty store. The suite closes it. */
  make(options?: StoreOptions): Promise<Store>;
  /**
   * For a backend that other processes can share: runs a worker process that claims one job of
   * `queue` on this store with a lease of `leaseMs` and is then killed (SIGKILL). Absent for a
   * backend that lives in one process (the suite says so in a skip).
   */
  claimInKilledProcess?: (store: Store, queue: string, leaseMs: number) => Promise<string>;
}
