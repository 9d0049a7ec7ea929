// No store: the commit pump (CommitPump.ts) with THE EARLY LEASE on, and a store of the test's own
// that answers two claims in flight in the order the test sets. The first asks for jobs early and
// names the time the next parked timer enters the lead; the second, sent while the first had
// reserved the budget, asks for none and knows only the due time. Answered second, it once
// put off the first's early wake (EARLY WAKE): the pump slept until the jobs were due and held none.
// And two claims that both ask early: the first answered short (the timers' due times spread over
// a few ms, so at the early wake only some were within the lead), the second with all it asked.
// The first's verdict (nothing more to claim) once stood after the second's: the pump slept until
// the jobs were due, holding a few hundred, while the rest waited for other workers or the due
// time (workload 15: one process of four held ~800 of its 25k, bench/RESULTS.md round twelve).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClaimRequest, ClaimedJob, CommitOp, CommitResult, Store } from '../../src/store/types.js';
import { eventually } from '../support/redis.js';
import { barePump, parkedWaiter } from '../support/barePump.js';

describe('the early wake', () => {
  it('keeps the early wake a claim named when one that asked for none early is answered after it', async () => {
    const t0 = Date.now();
    const early = t0 + 400; // the next parked timer enters the lead
    const due = t0 + 10_000; // the jobs' due time
    const calls: { at: number; hold: number; ops: number }[] = [];
    const answers: ((r: CommitResult) => void)[] = [];
    const store = {
      commit: (_q: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> => {
        calls.push({ at: Date.now(), hold: claim?.hold ?? 0, ops: ops.length });
        const empty = { written: ops.map(() => true), claimed: [], redisNow: Date.now() };
        // The first two are answered by the test; later ones name the next wake as it stands.
        if (calls.length <= 2) return new Promise((r) => answers.push(r));
        return Promise.resolve({ ...empty, nextDueAt: Date.now() < early ? early : due });
      },
    } as unknown as Store;
    const waiter = parkedWaiter();
    const { pump, signals } = barePump(store, waiter, { holdMax: 10, leadMs: 5_000 });
    // The pump's timers do not hold the process open; the test's waits need it open.
    const alive = setInterval(() => {}, 1000);
    pump.start();
    try {
      // Two claims in flight at once (the pump's double buffering): the first asks for the
      // whole budget early, the second, which finds it reserved, for none.
      await eventually(() => calls.length === 2, 2000);
      assert.deepEqual(
        calls.map((c) => c.hold),
        [10, 0],
      );
      const now = Date.now();
      answers[0]!({ written: [], claimed: [], nextDueAt: early, redisNow: now });
      await new Promise((r) => setTimeout(r, 20));
      answers[1]!({ written: [true], claimed: [], nextDueAt: due, redisNow: now });
      // The pump looks again at the early wake, not at the due time 10 s away.
      await eventually(() => calls.length >= 3, 2000);
      assert.ok(calls[2]!.at >= early - 50, 'not before the early wake');
    } finally {
      clearInterval(alive);
      pump.stop();
      signals.close();
      await pump.drain();
    }
  });

  it('claims again at once when a claim that took all it asked early is answered after one that fell short', async () => {
    const t0 = Date.now();
    const due = t0 + 10_000; // the jobs' due time: far beyond the test's bounds
    const calls: { at: number; hold: number }[] = [];
    const answers: ((r: CommitResult) => void)[] = [];
    const store = {
      commit: (_q: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> => {
        calls.push({ at: Date.now(), hold: claim?.hold ?? 0 });
        if (calls.length <= 2) return new Promise((r) => answers.push(r));
        return Promise.resolve({
          written: ops.map(() => true),
          claimed: [],
          nextDueAt: due,
          redisNow: Date.now(),
        });
      },
    } as unknown as Store;
    const heldJobs = (n: number, from: number): ClaimedJob[] =>
      Array.from({ length: n }, (_, i) => ({ id: `j${from + i}`, holdUntil: due }) as ClaimedJob);
    const waiter = parkedWaiter();
    const { pump, signals } = barePump(store, waiter, { holdMax: 2_000, leadMs: 5_000, startJob: () => {} });
    const alive = setInterval(() => {}, 1000);
    pump.start();
    try {
      // Both claims in flight ask early (the budget covers both).
      await eventually(() => calls.length === 2, 2000);
      assert.ok(
        calls[0]!.hold > 0 && calls[1]!.hold > 0,
        `both ask early: ${calls.map((c) => c.hold).join(', ')}`,
      );
      const now = Date.now();
      // The first: short of its hold (288 of 500), its next wake a few ms on.
      answers[0]!({ written: [], claimed: heldJobs(288, 0), nextDueAt: now + 5, redisNow: now });
      await new Promise((r) => setTimeout(r, 20));
      // The second, later in Redis's order: all it asked for, so more may be due within the lead.
      answers[1]!({ written: [], claimed: heldJobs(calls[1]!.hold, 288), nextDueAt: due, redisNow: now });
      // The pump claims again now, not at the due time 10 s away.
      await eventually(() => calls.length >= 3, 2000);
      assert.ok(calls[2]!.hold > 0, 'the next claim asks early too');
    } finally {
      clearInterval(alive);
      pump.stop();
      signals.close();
      await pump.drain();
    }
  });
});
