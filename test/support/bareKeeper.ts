// A LeaseKeeper (src/supervisor/LeaseKeeper.ts) over a fake store for the tests of its timers and
// its heartbeat set: `heartbeat` answers as the case says, the reaper finds nothing, the outbox
// relays nothing, and its own beats and reaps are a minute apart (a case sees only those it asks
// for, and the deadline sweep).

import pino from 'pino';
import type { ActiveJob } from '../../src/runtime/ActiveJob.js';
import { LeaseConfirmations } from '../../src/runtime/LeaseConfirmations.js';
import type { DeadlineBound } from '../../src/runtime/DeadlineBound.js';
import { LeaseKeeper } from '../../src/supervisor/LeaseKeeper.js';
import type { OutboxRelay } from '../../src/supervisor/OutboxRelay.js';
import type { LeaseState, WorkQueue } from '../../src/store/types.js';

export function bareKeeper(o: {
  running: ReadonlyMap<string, ActiveJob>;
  deadlines: DeadlineBound;
  confirmations?: LeaseConfirmations;
  leaseMs?: number;
  /** The store's answer to a heartbeat of these leases (default: none). */
  heartbeat?: (leases: { id: string; token: string }[]) => LeaseState[];
  onLeaseLost?: (id: string) => void;
}): LeaseKeeper {
  const store = {
    heartbeat: (_q: string, leases: { id: string; token: string }[]) =>
      Promise.resolve(o.heartbeat?.(leases) ?? []),
    reap: () => Promise.resolve({ requeued: [], failed: [] }),
  } as unknown as WorkQueue;
  return new LeaseKeeper({
    store,
    outbox: { relay: () => Promise.resolve() } as unknown as OutboxRelay,
    queue: 'q',
    log: pino({ level: 'silent' }),
    running: o.running,
    deadlines: o.deadlines,
    confirmations: o.confirmations ?? new LeaseConfirmations(),
    leaseMs: o.leaseMs ?? 60_000,
    heartbeatMs: 60_000,
    reaperIntervalMs: 60_000,
    maxLeaseRequeues: 3,
    onLeaseLost: (id) => o.onLeaseLost?.(id),
  });
}
