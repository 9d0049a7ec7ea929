// THE RETENTION FLOOR, checked when a supervisor starts: a store that deletes finished records
// sooner than a worker may still act on them breaks what the supervisor promises. A parent whose
// worker died re-runs its fan-out once its lease has passed and the reaper requeued it (up to
// leaseMs + reaperIntervalMs after); it must find its finished children's records then, or it
// makes them anew and they run again. So finishedTtlMs >= leaseMs + reaperIntervalMs.
// (A child's outcome on its way to a parent on another queue does not depend on it: the outbox
// entry carries it.)

import { RetentionTooShortError } from '../errors.js';
import type { StoreHandle } from '../store/types.js';

export function checkRetention(store: StoreHandle, leaseMs: number, reaperIntervalMs: number): void {
  const floor = leaseMs + reaperIntervalMs;
  if (store.finishedTtlMs < floor)
    throw new RetentionTooShortError(
      'finishedTtlMs',
      store.finishedTtlMs,
      floor,
      `this supervisor's leaseMs ${leaseMs} + reaperIntervalMs ${reaperIntervalMs}: a finished record must outlive a lease and the reap after it`,
    );
}
