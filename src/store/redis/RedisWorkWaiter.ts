// One supervisor's blocking wait for work: BZPOPMIN on its queue's marker (see commit-12.lua and
// enqueue-5.lua, which add the member), on a connection of its own, opened at the first wait.
// The same class waits for ingress entries with another blocking command (`block`).
// A connection blocks one command at a time, so a waiter shared by two supervisors would make
// the second wait behind the first, and one's close would cut the other's wait.

import { duplicateClient, type RedisClient } from './redisClient.js';
import type { WorkWaiter } from '../types.js';

export class RedisWorkWaiter implements WorkWaiter {
  private conn: RedisClient | undefined;
  private closed = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly marker: string,
    private readonly onClose: (waiter: RedisWorkWaiter) => void,
    /** The blocking command (default: BZPOPMIN on `marker`); `seconds` is its timeout. */
    private readonly block: (conn: RedisClient, key: string, seconds: number) => Promise<unknown> = (
      conn,
      key,
      seconds,
    ) => conn.bzpopmin(key, seconds),
  ) {}

  async wait(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    if (!this.conn) {
      this.conn = duplicateClient(this.redis);
      this.conn.on('error', () => {
        // ioredis reconnects by itself; the wait in flight fails and is caught below.
      });
    }
    try {
      await this.block(this.conn, this.marker, Math.max(0.01, timeoutMs / 1000));
    } catch {
      // Closed (shutdown) or the connection dropped: either way the caller looks again, but
      // not in a tight loop while Redis is away.
      if (!this.closed) await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.conn?.disconnect();
    this.conn = undefined;
    this.onClose(this);
  }
}
