// The store's clock as this worker sees it (Redis TIME for a RedisStore, the process's clock for
// a MemoryStore: every commit's reply carries the store's `now`), kept as the offset between
// that time and the worker's MONOTONIC clock (performance.now()). In src/store because it is
// the store's time, whichever store it is; the supervisor takes it from here. Durations in the worker (attempt
// deadlines, progress coalescing, idle waits) use the monotonic clock directly; anything stored
// (timers' due times, wake times) is in Redis time through here. Neither follows the wall clock,
// which NTP may step: a step of an hour MUST NOT time out every running job at once, nor wake
// every parked one.

/**
 * How fast the store's clock may drift from this worker's monotonic one (ms per ms): what was
 * learnt of their offset is loosened by this much as it ages. 200 ppm: quartz on two hosts is
 * within ~100; NTP slews a clock by up to 500 ppm, but only for a while, and a store clock that
 * moved past the bounds is caught by the next reply anyway (STEP).
 */
const MAX_DRIFT = 2e-4;

// The offset (store time minus performance.now()) is known within bounds. A reply stamped
// `redisNow` to a call sent at `sentAt` and answered at `receivedAt` ran between the two, so the
// offset lies in [redisNow - receivedAt, redisNow - sentAt]; each reply narrows what the earlier
// ones left (loosened by MAX_DRIFT since), so a quick round trip, once seen, keeps the bounds
// tight through slow ones.
//   NEVER AHEAD  `now()` reads the lower bound: a timer armed on it never fires before its due
//                store time; it is behind by at most the bounds' width, the best round trip
//                lately seen. (The middle of the latest round trip, used before, was ahead by up
//                to half of it when the call ran late in its trip, queued in a busy Redis: a
//                held job's timer fired 66 ms early in workload 15.)
//   NEVER EARLY  `latest()` reads the upper bound: a due time stamped from it (a timer armed
//                now for `delay`) is no sooner than `delay` after the store's time now, so the
//                timer fires no sooner wherever it is restored (a worker reading `now()`). One
//                stamped from `now()` was early by up to the bounds' width: a parker whose
//                answers were read late had another worker fire its timers that much early.
//   STEP         a reply outside the bounds means the store's clock moved (NTP set it): the
//                bounds start over from that reply alone.
export class StoreClock {
  /** Lower bound of the offset (ms); until the first reply, the wall clock's (`at` -Infinity). */
  private low = Date.now() - performance.now();
  /** Upper bound of the offset (ms). */
  private high = this.low;
  /** When the bounds were last set (performance.now() ms): they loosen from there. */
  private at = -Infinity;

  /** A reply stamped `redisNow` to a call sent at `sentAt` and answered at `receivedAt` (monotonic ms). */
  observe(redisNow: number, sentAt: number, receivedAt: number): void {
    const lo = redisNow - receivedAt;
    const hi = redisNow - sentAt;
    const slack = Math.max(0, receivedAt - this.at) * MAX_DRIFT;
    const low = this.low - slack;
    const high = this.high + slack;
    if (lo > high || hi < low) {
      // STEP
      this.low = lo;
      this.high = hi;
    } else {
      this.low = Math.max(low, lo);
      this.high = Math.min(high, hi);
    }
    this.at = receivedAt;
  }

  /** Store time now (ms), NEVER AHEAD of it. */
  now(): number {
    return Math.floor(performance.now() + this.low);
  }

  /** Store time now (ms), never behind it: what a due time is stamped from (NEVER EARLY). */
  latest(): number {
    return Math.ceil(performance.now() + this.high);
  }
}
