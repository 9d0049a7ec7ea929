// ROLE StoreHandle (required): what every backend is, whoever uses it: its name, its clock, its
// retention floor, and close. The other roles assume it (types.ts composes them into Store).
// Argument order, in every role: a call on a queue's work takes `queue` first; a call on one job
// takes the job's id first, then `queue`, the locator that finds it (types.ts lists the exceptions).

export interface StoreHandle {
  /** Names the store's data (a Redis key prefix; a MemoryStore's name in logs). */
  readonly prefix: string;
  /** Which backend this is, for what reports on it (GET /healthz says what it checked). */
  readonly kind: 'redis' | 'memory';
  /** How long finished (done, cancelled) records are kept (ms): a supervisor checks its floor. */
  readonly finishedTtlMs: number;
  /** The store's clock (ms): what stored times (run-at, expiries) are compared with. */
  now(): Promise<number>;
  /** Releases the store's connections (and writes what it keeps); the store is not used after. */
  close(): Promise<void>;
}
