// HeldJobs (src/supervisor/HeldJobs.ts), THE EARLY LEASE's count of a pump's held jobs: each hold
// ends exactly once, whichever of its ends comes first (HELD), and a claim asks for no more early
// than the supervisor's budget left and EARLY_CLAIM_CAP.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EARLY_CLAIM_CAP, HeldJobs } from '../../src/supervisor/HeldJobs.js';
import { ClaimShare } from '../../src/supervisor/ClaimShare.js';

/** A share with a fixed budget that counts its wake-ups. */
function countingShare(budget: number): { freeHold: () => number; changed: () => void; changes: number } {
  const share = { freeHold: () => budget, changed: () => void share.changes++, changes: 0 };
  return share;
}

test("each hold ends exactly once, whichever end comes first, and only a held job's", () => {
  const share = countingShare(100);
  const holds = new HeldJobs(share, 5000);
  const [a, b, c] = [{ holding: true }, { holding: true }, { holding: true }];
  for (let i = 0; i < 3; i++) holds.claimed();
  assert.equal(holds.count, 3);
  holds.end(a); // its timer came (woke) ...
  holds.end(a); // ... then it queued its ending write ...
  holds.end(a); // ... then its run ended: ended once
  assert.deepEqual([holds.count, a.holding, share.changes], [2, false, 1]);
  holds.end({ holding: false }); // a job never held (claimed due): nothing to end
  holds.end(c);
  holds.end(b);
  holds.end(c);
  assert.deepEqual([holds.count, b.holding, c.holding, share.changes], [0, false, false, 3]);
  assert.equal(holds.held(), 0);
});

test('a claim reserves no more early than the budget left, at most EARLY_CLAIM_CAP, until answered', () => {
  const share = new ClaimShare(10, 'weighted', 3);
  const holds = new HeldJobs(share, 5000);
  share.add(
    { queue: 'q', used: () => 0, mayHaveWork: () => true, kick: () => {}, held: () => holds.held() },
    1,
  );
  assert.equal(holds.reserve(4), 3);
  assert.equal(holds.held(), 3);
  assert.equal(holds.reserve(4), 0, 'the claim in flight holds the budget');
  holds.answered(3);
  holds.claimed(); // its answer took one early
  assert.equal(holds.reserve(4), 2);
  holds.answered(2);
  assert.equal(holds.held(), 1);

  const big = new ClaimShare(10, 'weighted', 100_000);
  const many = new HeldJobs(big, 5000);
  big.add({ queue: 'q', used: () => 0, mayHaveWork: () => true, kick: () => {}, held: () => many.held() }, 1);
  assert.equal(many.reserve(1), EARLY_CLAIM_CAP);
});

test('a claim takes none early with no lead, when it wants no job, or past the budget', () => {
  assert.equal(new HeldJobs(countingShare(100), 0).reserve(5), 0);
  assert.equal(new HeldJobs(countingShare(100), 5000).reserve(0), 0);
  assert.equal(new HeldJobs(countingShare(-2), 5000).reserve(5), 0, 'over budget: none, not a negative hold');
  const holds = new HeldJobs(countingShare(100), 5000);
  assert.deepEqual(holds.claimOptions(0), {});
  assert.deepEqual(holds.claimOptions(7), { leadMs: 5000, hold: 7 });
});

test('a claim that took all it asked for early did not find its queue empty', () => {
  const holds = new HeldJobs(countingShare(100), 5000);
  assert.equal(holds.tookAll(0, 0), false, 'asked for none');
  assert.equal(holds.tookAll(4, 3), false);
  assert.equal(holds.tookAll(4, 4), true);
});
