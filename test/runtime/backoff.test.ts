import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { defineJob, definePipeline } from '../../src/index.js';
import { backoffDelay } from '../../src/runtime/backoff.js';

const work = async () => null;
const machine = setup({}).createMachine({ initial: 'done', states: { done: { type: 'final' } } });
const error = { name: 'Error', message: 'boom' };

describe('backoff policies', () => {
  it('refuses a fixed backoff without delayMs at definition time, naming the field', () => {
    // Before: accepted, and every retry of the job computed a NaN delay.
    const backoff = { type: 'fixed' } as any;
    assert.throws(() => defineJob({ name: 'j', retry: { backoff }, work }), {
      code: 'INVALID_DEFINITION',
      field: 'retry.backoff.delayMs',
      message: /defineJob\("j"\): retry\.backoff\.delayMs is required for a fixed backoff/,
    });
    assert.throws(() => definePipeline({ name: 'p', retry: { backoff }, machine }), {
      code: 'INVALID_DEFINITION',
      field: 'retry.backoff.delayMs',
      message: /definePipeline\('p'\): retry\.backoff\.delayMs is required for a fixed backoff/,
    });
  });

  it('refuses a maxDelayMs that is not a number >= 0, naming the field', () => {
    for (const maxDelayMs of ['60000', -1, Number.NaN]) {
      const backoff = { type: 'exponential', maxDelayMs } as any;
      assert.throws(
        () => defineJob({ name: 'j', retry: { backoff }, work }),
        { code: 'INVALID_DEFINITION', message: /retry\.backoff\.maxDelayMs must be a number >= 0/ },
        String(maxDelayMs),
      );
    }
  });

  it('accepts the documented shapes: exponential with defaults, fixed with delayMs, a function', () => {
    defineJob({ name: 'a', retry: { backoff: { type: 'exponential' } }, work });
    defineJob({ name: 'b', retry: { backoff: { type: 'fixed', delayMs: 500, jitter: true } }, work });
    defineJob({ name: 'c', retry: { backoff: () => 10 }, work });
    assert.equal(backoffDelay({ type: 'fixed', delayMs: 500 }, 3, error), 500);
    assert.equal(backoffDelay({ type: 'exponential' }, 1, error), 2000);
    assert.equal(backoffDelay({ type: 'exponential', delayMs: 1000, maxDelayMs: 3000 }, 5, error), 3000);
  });

  it('never computes a delay that is not a number >= 0, even for a policy built past the checks', () => {
    // A policy mutated after defineJob, or cast from JSON: the delay falls back to 1 s instead of
    // NaN reaching the retry write.
    for (const policy of [
      { type: 'fixed' },
      { type: 'exponential', delayMs: 'x' },
      { type: 'fixed', delayMs: -5 },
    ]) {
      const d = backoffDelay(policy as any, 1, error);
      assert.ok(Number.isFinite(d) && d >= 0, `${JSON.stringify(policy)} gave ${d}`);
    }
  });
});
