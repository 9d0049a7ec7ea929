// The store's clock as a worker keeps it (src/store/StoreClock.ts). A reply's `redisNow` was read
// somewhere between the call's send and its answer; where is unknown. Taking the middle of the
// latest round trip put the clock ahead of the store's by up to half of it whenever the call ran
// late in its trip (queued in a busy Redis): a held job's timer then fired that much early
// (workload 15 saw one done 66 ms before its due time). Never ahead; behind by no more than the
// best round trip seen; a step of the store's clock followed at once.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StoreClock } from '../../src/store/StoreClock.js';

/** The store's clock: this far ahead of performance.now(). */
const TRUE_OFFSET = 1_795_000_000_000;
const storeNow = () => performance.now() + TRUE_OFFSET;

/** A call sent `fromMs` ago and answered `toMs` ago, which ran `ranMs` ago. */
function reply(clock: StoreClock, fromMs: number, ranMs: number, toMs: number, step = 0): void {
  const t = performance.now();
  clock.observe(t - ranMs + TRUE_OFFSET + step, t - fromMs, t - toMs);
}

describe('the store clock a worker keeps', () => {
  it('is never ahead of the store: a call that ran at the end of a slow round trip', () => {
    const clock = new StoreClock();
    reply(clock, 300, 299.5, 299); // a quick one first
    reply(clock, 101, 1, 0.5); // ran at the end of a 100 ms trip
    assert.ok(clock.now() <= Math.ceil(storeNow()), `${clock.now() - storeNow()} ms ahead`);
  });

  it('is never ahead with only slow round trips, each run at its end', () => {
    const clock = new StoreClock();
    for (let i = 5; i >= 1; i--) reply(clock, 100 * i + 100, 100 * i + 1, 100 * i);
    assert.ok(clock.now() <= Math.ceil(storeNow()), `${clock.now() - storeNow()} ms ahead`);
  });

  it('is behind by no more than its best round trip: a slow one that ran at its start', () => {
    const clock = new StoreClock();
    reply(clock, 300, 299.5, 299);
    reply(clock, 101, 100.5, 0.5); // ran at once, its answer read 100 ms later
    const behind = storeNow() - clock.now();
    assert.ok(behind <= 2, `${behind} ms behind`);
    assert.ok(behind >= -1, `${-behind} ms ahead`);
  });

  it('reads `latest` never behind the store: a call that ran at the start of a slow round trip', () => {
    const clock = new StoreClock();
    reply(clock, 101, 100.5, 0.5); // ran at once, its answer read 100 ms later
    const behind = storeNow() - clock.latest();
    assert.ok(behind <= 0, `${behind} ms behind`);
    // ...and ahead by no more than the round trip: a due time stamped from it is that late at most.
    assert.ok(behind >= -101, `${-behind} ms ahead`);
    assert.ok(clock.latest() >= clock.now());
  });

  it("follows a step of the store's clock at once (its time set 10 s on)", () => {
    const clock = new StoreClock();
    reply(clock, 300, 299.5, 299);
    reply(clock, 2, 1.5, 1, 10_000);
    const off = clock.now() - storeNow();
    assert.ok(off > 10_000 - 3 && off <= 10_000 + 1, `${off} ms from the stepped store time`);
  });
});
