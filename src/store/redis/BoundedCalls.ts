// Client calls to Redis that give up in bounded time. A producer calling `client.enqueue` while
// Redis is down gets REDIS_UNAVAILABLE within `RedisStoreOptions.commandTimeoutMs`, naming the
// server, instead of a promise that waits for as long as the outage lasts.
//
// THE NO-LATE-WRITE RULE: a call that gave up MUST NOT land later as a surprise write. So client calls go over
// a connection of their own that never holds a command back (FAIL_FAST): a command issued while
// it is down fails at once instead of waiting in ioredis's offline queue, and one in flight when
// it drops fails instead of being re-sent after the reconnect. The retrying is done here, each
// attempt only once the connection is ready, until the deadline. A command that was sent and
// never answered may still be applied (Redis got it): the error says so (`maybeApplied`).
// Enqueue ids are made before the first attempt, so a resend carries the same ids.
//
// On a cluster the fail-fast connection is a cluster client with the same settings on each
// node's connection (redisClient.ts duplicateClient): no cluster-wide offline queue; a node's
// connection still queues a command while it first connects (ioredis forces that), and drops it
// at its first failed reconnect (maxRetriesPerRequest 0). A call that gives up while one waits
// there says it may still be applied, as any call sent and never answered does.
//
// The supervisors' own calls (commit, heartbeat, reap, waits) stay on the store's patient
// connection: they wait out any outage, and are re-sent by ioredis after the reconnect.

import type { RedisOptions } from 'ioredis';
import { addressOf, duplicateClient, type RedisClient } from './redisClient.js';

export { addressOf };
import { RedisUnavailableError, type ErrorIds } from '../../errors.js';
import { backoffMs, mayHaveBeenApplied, callErrorKind } from '../callErrors.js';
import type { RedisContext } from './RedisContext.js';

/** ioredis options of a connection that never holds a command back (see THE NO-LATE-WRITE RULE above). */
const FAIL_FAST: Partial<RedisOptions> = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  // Reconnect attempts at most 500 ms apart (ioredis's default backs off to 2 s): a call made
  // just after Redis is back finds the connection ready well within its bound.
  retryStrategy: (times: number) => Math.min(times * 50, 500),
};

/** Retries within one call back off from 50 ms to at most this. */
const MAX_RETRY_WAIT_MS = 250;

export interface CallOptions {
  /** The ids the call concerns, carried by its REDIS_UNAVAILABLE error. */
  ids?: ErrorIds;
  /** The call writes: its error says whether the write may still be applied. */
  writes?: boolean;
  /**
   * 'always' (default): the call is safe to send again even if an earlier attempt was applied
   * (reads; enqueue with its ids fixed; cancel). 'if-unsent': only when no attempt may have
   * reached Redis (send appends to an inbox: twice would deliver twice).
   */
  resend?: 'always' | 'if-unsent';
  /** A blocking read on a connection of its own (a reader): which, and how long it blocks. */
  reader?: RedisClient;
  blockMs?: number;
}

export class BoundedCalls {
  readonly address: string;
  private conn: RedisClient | undefined;
  private ctx: RedisContext | undefined;
  /** The last error a fail-fast connection reported (ECONNREFUSED ...): the reason given. */
  private lastError: unknown;

  constructor(
    /** The store's connection: the fail-fast ones copy its options. */
    private readonly base: RedisClient,
    readonly timeoutMs: number,
    /** A context whose commands and scripts go over `conn`. */
    private readonly contextFor: (conn: RedisClient) => RedisContext,
  ) {
    this.address = addressOf(base);
  }

  /** A fail-fast connection of its own, for a blocking read (its pop holds the connection). */
  reader(): RedisClient {
    const r = duplicateClient(this.base, FAIL_FAST);
    r.on('error', (err: unknown) => (this.lastError = err));
    return r;
  }

  /**
   * Runs `fn` over the fail-fast connection, trying again after temporary errors (a lost
   * connection, OOM, LOADING, ...) until `timeoutMs` has passed since the call began; then
   * rejects with RedisUnavailableError. Errors that are the call's own (JOB_NOT_FOUND, a script
   * error) reject at once.
   */
  async call<T>(
    operation: string,
    fn: (ctx: RedisContext) => Promise<T>,
    options: CallOptions = {},
  ): Promise<T> {
    const ctx = this.context();
    const conn = options.reader ?? this.conn!;
    const deadline = Date.now() + this.timeoutMs;
    let failures = 0;
    let maybeApplied = false;
    let cause: unknown;
    for (;;) {
      if (conn.status !== 'ready' && !(await whenReady(conn, deadline)))
        throw this.unavailable(operation, cause ?? this.lastError, maybeApplied, options);
      try {
        return await this.within(fn(ctx), deadline + (options.blockMs ?? 0), operation, options);
      } catch (err) {
        if (err instanceof RedisUnavailableError || callErrorKind(err) !== 'transient') throw err;
        cause = err;
        if (mayHaveBeenApplied(err)) {
          maybeApplied = true;
          if (options.resend === 'if-unsent') throw this.unavailable(operation, err, true, options);
        }
        const wait = backoffMs(++failures, MAX_RETRY_WAIT_MS);
        if (Date.now() + wait >= deadline) throw this.unavailable(operation, err, maybeApplied, options);
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  close(): void {
    this.conn?.disconnect();
  }

  private context(): RedisContext {
    if (!this.ctx) {
      this.conn = duplicateClient(this.base, FAIL_FAST);
      this.conn.on('error', (err: unknown) => (this.lastError = err));
      this.ctx = this.contextFor(this.conn);
    }
    return this.ctx;
  }

  /** The attempt's reply, or REDIS_UNAVAILABLE once `until` passes without one (sent: it may land). */
  private within<T>(attempt: Promise<T>, until: number, operation: string, options: CallOptions): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(this.unavailable(operation, new Error('no reply'), true, options)),
        Math.max(0, until - Date.now()),
      );
      attempt.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  private unavailable(
    operation: string,
    cause: unknown,
    sent: boolean,
    options: CallOptions,
  ): RedisUnavailableError {
    const why = cause instanceof Error ? cause.message : 'not connected';
    const maybeApplied = sent && options.writes === true;
    let applied = '';
    if (options.writes)
      applied = maybeApplied ? '; it was sent and may still be applied' : '; nothing was written';
    return new RedisUnavailableError(
      this.address,
      `Redis at ${this.address} was unavailable for ${operation} (tried for ${this.timeoutMs} ms: ${why})${applied}`,
      { ids: options.ids, maybeApplied, cause },
    );
  }
}

/** Resolves true once `conn` is ready, false if it is not by `deadline` or has been closed. */
function whenReady(conn: RedisClient, deadline: number): Promise<boolean> {
  if (conn.status === 'end') return Promise.resolve(false);
  // Options with lazyConnect: nothing connects a fail-fast connection but a call.
  if (conn.status === 'wait') conn.connect().catch(() => undefined);
  return new Promise((resolve) => {
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      conn.off('ready', onReady);
      conn.off('end', onEnd);
      resolve(ok);
    };
    const onReady = () => finish(true);
    const onEnd = () => finish(false);
    const timer = setTimeout(() => finish(false), Math.max(0, deadline - Date.now()));
    conn.once('ready', onReady);
    conn.once('end', onEnd);
  });
}
