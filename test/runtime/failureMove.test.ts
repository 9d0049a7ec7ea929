// failureMove (src/runtime/lifecycle.ts) is the lifecycle machine's FAIL computed once per
// success-path snapshot and finality: it must give what stepping the machine with the real error
// gives, for every attempt shape, or a failure would be retried (or failed) against the machine.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  failureMove,
  initialLifecycle,
  lifecycleState,
  stepLifecycle,
  successPath,
} from '../../src/runtime/lifecycle.js';
import { toStoredError } from '../../src/errors.js';

describe('failureMove: a failed attempt moves as the lifecycle machine moves it', () => {
  it('gives the state and attempt that stepping FAIL with the real error gives, for every attempt shape', () => {
    const error = { ...toStoredError(new Error('down')), code: 'E_DOWN' };
    let cases = 0;
    for (let maxAttempts = 1; maxAttempts <= 4; maxAttempts++)
      for (let attempt = 1; attempt <= maxAttempts + 1; attempt++)
        for (const hasLoad of [false, true]) {
          const path = successPath(attempt, maxAttempts, hasLoad);
          for (const life of [path.claimed, path.working])
            for (const final of [false, true]) {
              // Twice: the first computes the move, the second is the one kept.
              for (let i = 0; i < 2; i++) {
                const stepped = stepLifecycle(life, { type: 'FAIL', error, final, retryAt: 0 });
                const where = `attempt ${attempt} of ${maxAttempts}, ${lifecycleState(life)}, final ${final}`;
                assert.deepEqual(
                  failureMove(life, final),
                  { state: lifecycleState(stepped), attempt: stepped.context.attempt },
                  where,
                );
              }
              cases++;
            }
        }
    assert.equal(cases, 112);
  });

  it('retries while attempts are left and the failure is not final, and fails for good otherwise', () => {
    const life = successPath(1, 3, false).working;
    assert.deepEqual(failureMove(life, false), { state: 'queued', attempt: 2 });
    assert.deepEqual(failureMove(life, true), { state: 'failed', attempt: 1 });
    assert.deepEqual(failureMove(successPath(3, 3, false).working, false), { state: 'failed', attempt: 3 });
  });

  it('takes a snapshot the success path did not make', () => {
    const claimed = stepLifecycle(initialLifecycle(2, 5), { type: 'CLAIM', hasLoad: true });
    assert.deepEqual(failureMove(claimed, false), { state: 'queued', attempt: 3 });
    assert.deepEqual(failureMove(claimed, true), { state: 'failed', attempt: 2 });
  });
});
