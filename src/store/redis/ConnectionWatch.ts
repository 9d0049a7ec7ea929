// Follows the store's patient connection (the one supervisors' calls wait on) from ioredis's
// events and reports each change between reachable and unreachable once: a supervisor logs the
// outage as one warning and its end as one info line, not a line per failed reconnect attempt.
// It also tells of each reconnect (every 'ready' after the first), after which the server may
// have lost its data.

import type { RedisClient } from './redisClient.js';
import type { ConnectionChange } from '../types.js';
import { addressOf } from './BoundedCalls.js';

export class ConnectionWatch {
  private readonly listeners = new Set<(change: ConnectionChange) => void>();
  private state: 'unknown' | 'up' | 'down' = 'unknown';
  private downSince = 0;
  private lastError: unknown;
  private closed = false;
  private everReady = false;
  private readonly reconnectListeners = new Set<() => void>();
  readonly address: string;

  constructor(redis: RedisClient) {
    this.address = addressOf(redis);
    redis.on('ready', () => {
      if (!this.everReady) return void (this.everReady = true);
      for (const l of [...this.reconnectListeners]) l();
    });
    redis.on('error', (err: unknown) => {
      this.lastError = err;
      this.down();
    });
    redis.on('close', () => this.down());
    redis.on('ready', () => {
      if (this.state === 'down')
        this.emit({ up: true, address: this.address, downMs: Date.now() - this.downSince });
      this.state = 'up';
      this.lastError = undefined;
    });
  }

  /** Calls `listener` on each change (at once if Redis is unreachable now); returns an unsubscribe. */
  watch(listener: (change: ConnectionChange) => void): () => void {
    this.listeners.add(listener);
    if (this.state === 'down') listener({ up: false, address: this.address, error: this.lastError });
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` on each reconnect (not the first connect); returns an unsubscribe. */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** The store is closing: its connection going away is not an outage. */
  close(): void {
    this.closed = true;
    this.listeners.clear();
  }

  private down(): void {
    if (this.closed || this.state === 'down') return;
    this.state = 'down';
    this.downSince = Date.now();
    // Reported at the first sign ('close' after a drop, 'error' when it never connected), with
    // the cause when ioredis gave one (ECONNREFUSED ...).
    this.emit({ up: false, address: this.address, error: this.lastError });
  }

  private emit(change: ConnectionChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch {
        // a listener's failure must not break the connection's event handling
      }
    }
  }
}
