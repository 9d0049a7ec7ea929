// The store's clock as this worker sees it (Redis TIME for a RedisStore, the process's clock for
// a MemoryStore: every commit's reply carries the store's `now`), kept as the offset between
// that time and the worker's MONOTONIC clock (performance.now()). In src/store because it is
// the store's time, whichever store it is; the supervisor takes it from here. Durations in the worker (attempt
// deadlines, progress coalescing, idle waits) use the monotonic clock directly; anything stored
// (timers' due times, wake times) is in Redis time through here. Neither follows the wall clock,
// which NTP may step: a step of an hour MUST NOT time out every running job at once, nor wake
// every parked one.

export class StoreClock {
  /** Store time minus performance.now() (ms). Until the first commit, the wall clock's. */
  private offset = Date.now() - performance.now();

  /** A reply stamped `redisNow` to a call sent at `sentAt` and answered at `receivedAt` (monotonic ms). */
  observe(redisNow: number, sentAt: number, receivedAt: number): void {
    this.offset = redisNow - (sentAt + receivedAt) / 2;
  }

  /** Store time now (ms). */
  now(): number {
    return Math.round(performance.now() + this.offset);
  }
}
