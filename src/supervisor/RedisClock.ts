// Redis's clock as this worker sees it: the offset between Redis TIME (on every commit's reply)
// and the worker's MONOTONIC clock (performance.now()). Durations in the worker (attempt
// deadlines, progress coalescing, idle waits) use the monotonic clock directly; anything stored
// (timers' due times, wake times) is in Redis time through here. Neither follows the wall clock,
// which NTP may step: a step of an hour MUST NOT time out every running job at once, nor wake
// every parked one.

export class RedisClock {
  /** Redis time minus performance.now() (ms). Until the first commit, the wall clock's. */
  private offset = Date.now() - performance.now();

  /** A reply stamped `redisNow` to a call sent at `sentAt` and answered at `receivedAt` (monotonic ms). */
  observe(redisNow: number, sentAt: number, receivedAt: number): void {
    this.offset = redisNow - (sentAt + receivedAt) / 2;
  }

  /** Redis time now (ms). */
  now(): number {
    return Math.round(performance.now() + this.offset);
  }
}
