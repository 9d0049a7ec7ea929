// A commit pump (src/supervisor/CommitPump.ts) with no supervisor around it: the test's own store
// and work waiter, one lane of concurrency 4 on queue 'q'; a job claimed fails the test unless
// the test passes its own `startJob` (test/supervisor/idleSignal.test.ts, earlyWake.test.ts,
// earlySend.test.ts).

import assert from 'node:assert/strict';
import { pino } from 'pino';
import { CommitPump, type CommitPumpOptions } from '../../src/supervisor/CommitPump.js';
import { ClaimShare } from '../../src/supervisor/ClaimShare.js';
import { WorkSignals } from '../../src/supervisor/WorkSignals.js';
import { StoreClock } from '../../src/store/StoreClock.js';
import type { OutboxRelay } from '../../src/supervisor/OutboxRelay.js';
import type { QueuesWaiter, Store } from '../../src/store/types.js';

/** A work waiter whose waits end only at interrupt or close (the tests' pumps find no work). */
export function parkedWaiter(): QueuesWaiter & { waits: number } {
  const waits: ((queues: string[]) => void)[] = [];
  const end = () => waits.splice(0).forEach((r) => r([]));
  return {
    wait: () => new Promise((r) => waits.push(r)),
    interrupt: end,
    putBack: () => {},
    close: end,
    get waits() {
      return waits.length;
    },
  };
}

/** The pump, its lanes' share (`holdMax` its hold budget) and signals; started by the caller. */
export function barePump(
  store: Store,
  waiter: QueuesWaiter,
  options: Partial<CommitPumpOptions> & { holdMax?: number } = {},
): { pump: CommitPump; share: ClaimShare; signals: WorkSignals } {
  const { holdMax = 0, ...rest } = options;
  const share = new ClaimShare(4, 'weighted', holdMax);
  // idleWaitMs far beyond any test's bound: only a look again claims within it.
  const signals = new WorkSignals(waiter, 60_000);
  const pump: CommitPump = new CommitPump({
    store,
    queue: 'q',
    workerId: 'w',
    concurrency: 4,
    leaseMs: 30_000,
    maxInputBytes: 1024 * 1024,
    idleWaitMs: 60_000,
    log: pino({ level: 'silent' }),
    loadMachines: [],
    running: new Map(),
    startJob: () => assert.fail('nothing is claimed'),
    onLeaseLost: () => {},
    clock: new StoreClock(),
    outbox: {} as OutboxRelay,
    share,
    signals,
    shared: false,
    ...rest,
  });
  share.add(pump, 1);
  return { pump, share, signals };
}
