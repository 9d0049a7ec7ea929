// The clock of a test harness: it runs with real time (so a supervisor, which measures time on
// its own monotonic clock between commits, agrees with it) and jumps forward on `advance`.

export class TestClock {
  private readonly origin: number;
  private readonly t0 = performance.now();
  private skipped = 0;

  /** `start`: the time it reads now (ms since epoch). Default: the wall clock's. */
  constructor(start = Date.now()) {
    this.origin = start;
  }

  now(): number {
    return Math.round(this.origin + (performance.now() - this.t0) + this.skipped);
  }

  /** Moves the clock `ms` forward at once. */
  advance(ms: number): void {
    if (!(Number.isFinite(ms) && ms >= 0))
      throw new TypeError(`advance: ms must be a number >= 0 (got ${ms})`);
    this.skipped += ms;
  }
}
