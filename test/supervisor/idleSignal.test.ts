// No store: the commit pump (CommitPump.ts) idling on its queue, with a store and a waiter of the
// test's own, so that a signal and a kick arrive in the order the test sets. A signal handed over
// while a kick settles the pump's idle wait (SIGNAL AFTER KICK) MUST make the pump look again: its
// marker was taken for this wait. Dropped, the pump slept out idleWaitMs with a parked job due
// (on a 3-master cluster a parked job's wake took 5 s: the run's end kicked the pump just as the
// marker its park had set came back as a signal).

import { describe, it } from 'node:test';
import type { CommitResult, QueuesWaiter, Store } from '../../src/store/types.js';
import { eventually } from '../support/redis.js';
import { barePump } from '../support/barePump.js';

describe('the commit pump idle', () => {
  it('looks again when its queue is signalled in the same turn as a kick', async () => {
    let claims = 0;
    // Every claim finds the queue empty, with no delayed job: only a signal may end the idle wait.
    const store = {
      commit: async (): Promise<CommitResult> => {
        claims++;
        return { written: [], claimed: [], nextDueAt: null, redisNow: Date.now() };
      },
    } as unknown as Store;
    let waits = 0;
    /** Claims made when the signal was handed over. */
    let claimsThen = -1;
    const held: ((queues: string[]) => void)[] = [];
    // The first wait: a kick (a run ended) and then, at once, the marker taken for the queue (a
    // cluster lane took it while no wait was in progress: RedisQueuesWaiter's NO LOST WAKE-UP).
    // Later waits find nothing until closed.
    const waiter: QueuesWaiter = {
      wait: (queues) => {
        if (++waits === 1) {
          claimsThen = claims;
          pump.kick();
          return Promise.resolve([...queues]);
        }
        return new Promise((r) => held.push(r));
      },
      interrupt: () => held.splice(0).forEach((r) => r([])),
      putBack: () => {},
      close: () => held.splice(0).forEach((r) => r([])),
    };
    const { pump, signals } = barePump(store, waiter);
    pump.start();
    try {
      await eventually(() => waits >= 1, 2000);
      // The signal's claim: within a second, not idleWaitMs.
      await eventually(() => claims > claimsThen, 1000);
    } finally {
      pump.stop();
      signals.close();
      await pump.drain();
    }
  });
});
