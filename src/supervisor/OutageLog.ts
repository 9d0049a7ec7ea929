// Logs a Redis outage as one warning when a loop's calls start failing and one info line when
// they work again, instead of a line per failed call (a pump retrying every second for a minute,
// a heartbeat every 250 ms). One per loop (commits, heartbeat, reaper): under OOM the claims
// go through while the heartbeat's writes are refused, so "Redis is down" is not one state.

import type { Logger } from 'pino';

export class OutageLog {
  /** When the current run of failures began (Date.now()), 0 while calls work. */
  private since = 0;
  private failures = 0;

  constructor(
    private readonly log: Logger,
    /** What is retried, for the log lines: 'commits', 'heartbeat', 'reaper'. */
    private readonly what: string,
  ) {}

  get failing(): boolean {
    return this.since !== 0;
  }

  /** Consecutive failures so far (0 once a call worked): the retry backoff's exponent. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  failed(err: unknown): void {
    this.failures++;
    if (this.since !== 0) return;
    this.since = Date.now();
    this.log.warn({ err }, `Redis is not taking ${this.what} (${describe(err)}); retrying until it does`);
  }

  /** A call worked: ends the outage (cheap when there was none: the pump calls it per commit). */
  recovered(): void {
    if (this.since === 0) return;
    const downMs = Date.now() - this.since;
    this.log.info({ downMs, failures: this.failures }, `Redis takes ${this.what} again after ${downMs} ms`);
    this.since = 0;
    this.failures = 0;
  }
}

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > 120 ? `${message.slice(0, 120)}...` : message;
}
