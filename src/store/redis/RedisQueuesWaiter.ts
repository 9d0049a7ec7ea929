// One supervisor's wait for work on all the queues it serves, on ONE connection of its own:
// BZPOPMIN over the queues' markers (the scripts that queue work ZADD the member 'w': commit-12,
// enqueue-5, send-5, reap-7, retryDead-6, cancel-8, drainIngress-7) and over this waiter's own
// wake key, which interrupt() sets to end the wait early.
//
// On a Redis Cluster one BZPOPMIN may name keys of one slot only (CROSSSLOT otherwise), so each
// queue is a group of its own (its marker and this waiter's wake key in its slot share its hash
// tag; two tags may share a slot, but a group per tag never crosses one) and the waiter blocks
// on one group at a time, rotating, each block cut to ROTATE_SLICE_MS while other groups
// wait their turn: a group's wake-up waits at most (groups - 1) slices. Nothing is lost that
// way (NO LOST WAKE-UP): a marker stays set until a waiter takes it, so a group looked at late
// still reports the work it got meanwhile. One connection per supervisor on a cluster too.

import { duplicateClient, type RedisClient } from './redisClient.js';
import { randomUUID } from 'node:crypto';
import type { QueuesWaiter } from '../types.js';

/** How long one slot group is blocked on while others wait their turn (cluster only). */
export const ROTATE_SLICE_MS = 200;

export interface QueueWaitKeys {
  /** The queue's marker zset. */
  marker(queue: string): string;
  /** A wake key in the queue's slot, named by this waiter's id. */
  wake(queue: string, waiterId: string): string;
}

export class RedisQueuesWaiter implements QueuesWaiter {
  private conn: RedisClient | undefined;
  private closed = false;
  private readonly id = randomUUID();
  /** The wake key of the block in flight (undefined: none in flight). */
  private blockingOn: string | undefined;
  /** Next group to block on (cluster rotation). */
  private turn = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: QueueWaitKeys,
    /** True on a Redis Cluster: one queue's slot per block. */
    private readonly cluster: boolean,
    private readonly onClose: (waiter: RedisQueuesWaiter) => void,
  ) {}

  async wait(queues: readonly string[], timeoutMs: number): Promise<string[]> {
    if (this.closed || queues.length === 0) return [];
    if (!this.conn) {
      this.conn = duplicateClient(this.redis);
      this.conn.on('error', () => {
        // ioredis reconnects by itself; the wait in flight fails and is caught below.
      });
    }
    const groups = this.groups(queues);
    const group = groups[this.turn++ % groups.length]!;
    const ms = groups.length > 1 ? Math.min(timeoutMs, ROTATE_SLICE_MS) : timeoutMs;
    const wake = this.keys.wake(group[0]!, this.id);
    const byMarker = new Map(group.map((q) => [this.keys.marker(q), q]));
    this.blockingOn = wake;
    try {
      const r = await this.conn.bzpopmin(...byMarker.keys(), wake, Math.max(0.01, ms / 1000));
      const queue = r ? byMarker.get(r[0]) : undefined;
      return queue === undefined ? [] : [queue];
    } catch {
      // Closed (shutdown) or the connection dropped: either way the caller looks again, but
      // not in a tight loop while Redis is away.
      if (!this.closed) await new Promise((r) => setTimeout(r, 50));
      return [];
    } finally {
      this.blockingOn = undefined;
    }
  }

  interrupt(): void {
    const wake = this.blockingOn;
    if (wake === undefined || this.closed) return;
    // Sent on the main connection (this one is blocked). Set after the block ended, it makes the
    // next wait return at once with nothing: a spare look, never a lost one. Expires on its own.
    void this.redis
      .multi()
      .zadd(wake, 0, 'w')
      .pexpire(wake, 60_000)
      .exec()
      .catch(() => undefined);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.conn?.disconnect();
    this.conn = undefined;
    this.onClose(this);
  }

  /** The queues in groups that one BZPOPMIN may name together (all of them on one node). */
  private groups(queues: readonly string[]): string[][] {
    return this.cluster ? queues.map((q) => [q]) : [[...queues]];
  }
}
