// The data format's version: the layout of what a store keeps (the job hash of recordSchema.ts,
// the keys of keys.ts, the MemoryStore data file) as a number, kept beside the data
// (`<prefix>:format` in Redis, `format` in the data file). A store whose version is not the
// code's is refused before anything is written, so a field change is never an unplanned
// migration of live data: it is a new version and a numbered migration (docs/data-format.md).

import { StoreFormatError } from '../errors.js';

/** The version this code reads and writes. */
export const STORE_FORMAT = 4;

/** One step of `machinist migrate-store`: from `to - 1` to `to`, as graphile-worker numbers its. */
export interface MigrationInfo {
  readonly to: number;
  /** True when every worker and client of the older version must be stopped first. */
  readonly breaking: boolean;
  readonly description: string;
}

/** Every migration, in order; the backends implement each (redis/formatOps.ts, memory/snapshotFile.ts). */
export const MIGRATIONS: readonly MigrationInfo[] = [
  {
    to: 1,
    breaking: false,
    description:
      "checks that every job record holds only fields of today's layout (recordSchema.ts), then stamps version 1",
  },
  {
    to: 2,
    breaking: true,
    description:
      "pipelines' snapshots (`sn`) are written compact, XState's default fields left out: a worker of format 1 " +
      'cannot restore one, so none may run; records written before are read as they are (nothing rewritten)',
  },
  {
    to: 3,
    breaking: true,
    description:
      'the ready list: runnable jobs of the normal band without a concurrency key that enter at a fresh place are ' +
      'kept in a list `ready` beside the `queued` zset, which a claim of format 2 never reads, so none may run; ' +
      'the jobs a format-2 store has in `queued` stay there, and the claim reads both (nothing moved)',
  },
  {
    to: 4,
    breaking: true,
    description:
      'a job record leaves out `v` and `ma` when they hold the defaults (version 1, max attempts 4), which a ' +
      "reader of format 3 would take for version 0 and max attempts 1, and a batch's `enqueued` stream entry " +
      'lists its ids grouped (`jg`), which it would not read, so none may run; records and entries written ' +
      'before are read as they are (nothing rewritten)',
  },
];

/**
 * Refuses a store whose version is not STORE_FORMAT: STORE_FORMAT_NEWER or STORE_FORMAT_OLDER,
 * naming both versions and `where` (the Redis URL and prefix, or the data file).
 */
export function assertFormat(stored: number, where: string): void {
  if (stored > STORE_FORMAT) throw new StoreFormatError('STORE_FORMAT_NEWER', stored, STORE_FORMAT, where);
  if (stored < STORE_FORMAT) throw new StoreFormatError('STORE_FORMAT_OLDER', stored, STORE_FORMAT, where);
}

/** The migrations that take a store from `stored` to STORE_FORMAT, in order. */
export function migrationsFrom(stored: number): readonly MigrationInfo[] {
  return MIGRATIONS.filter((m) => m.to > stored && m.to <= STORE_FORMAT);
}
