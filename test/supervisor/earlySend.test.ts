// EARLY SEND (CommitPump.ts): timers due at one instant fire in one timers phase, with only
// microtasks between them. A full batch of the writes they queue goes out there, as soon as it is
// full, not once the phase has ended; and while full batches wait, more commits than the two that
// claim may be in flight (those past two claim nothing).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClaimRequest, CommitOp, CommitResult, Store } from '../../src/store/types.js';
import { MAX_BATCH } from '../../src/supervisor/pendingWrites.js';
import { eventually } from '../support/redis.js';
import { barePump, parkedWaiter } from '../support/barePump.js';

const done = (n: number): CommitOp => ({
  kind: 'done',
  id: `j${n}`,
  token: `j${n}:t`,
  output: '1',
  snapshot: '',
  log: [],
});

describe('early send', () => {
  it('sends full batches while timers due at one instant still fire, more of them in flight than two', async () => {
    // Claims are answered at once (the queue is empty); commits of writes are held by the test.
    const sent: { writes: number; claims: boolean }[] = [];
    const held: (() => void)[] = [];
    let holding = true;
    const store = {
      commit: (_q: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> => {
        sent.push({ writes: ops.length, claims: (claim?.max ?? 0) > 0 });
        const answer = { written: ops.map(() => true), claimed: [], nextDueAt: null, redisNow: Date.now() };
        if (ops.length === 0 || !holding) return Promise.resolve(answer);
        return new Promise((r) => held.push(() => r(answer)));
      },
    } as unknown as Store;
    const waiter = parkedWaiter();
    const { pump, signals } = barePump(store, waiter);
    const alive = setInterval(() => {}, 1000);
    pump.start();
    try {
      // The pump found the queue empty and waits for work.
      await eventually(() => waiter.waits === 1, 2000);
      const n = 10 * MAX_BATCH;
      let fired = 0;
      let sentWhileFiring = 0;
      await new Promise<void>((resolve) => {
        const at = Date.now() + 30;
        for (let i = 0; i < n; i++)
          setTimeout(
            () => {
              void pump.write(done(i));
              if (++fired === n) {
                sentWhileFiring = sent.filter((s) => s.writes > 0).length;
                resolve();
              }
            },
            Math.max(0, at - Date.now()),
          );
      });
      // Ten batches' worth were queued while the timers fired: eight commits went out meanwhile
      // (MAX_FULL_IN_FLIGHT), none answered. Sent only at a tick's end, one did (between two
      // timers phases, when the timers' lists were due a millisecond apart).
      assert.equal(sentWhileFiring, 8, 'commits sent while the timers fired');
      const writeCommits = sent.filter((s) => s.writes > 0);
      assert.equal(writeCommits.filter((s) => s.claims).length <= 2, true, 'at most two of them claim');
      // Answered, the rest go out, in line: every write is sent once.
      holding = false;
      held.splice(0).forEach((r) => r());
      await eventually(() => sent.reduce((a, s) => a + s.writes, 0) === n, 2000);
    } finally {
      holding = false;
      held.splice(0).forEach((r) => r());
      clearInterval(alive);
      pump.stop();
      signals.close();
      await pump.drain();
    }
  });
});
