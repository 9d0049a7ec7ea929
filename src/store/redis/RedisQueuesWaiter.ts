// One supervisor's wait for work on all the queues it serves: BZPOPMIN over the queues' markers
// (the scripts that queue work ZADD the member 'w': commit-12, enqueue-5, send-5, reap-7,
// retryDead-6, cancel-8, drainIngress-7) and over a wake key of this waiter's own, which cuts a
// block short.
//
// On one node: ONE connection, one BZPOPMIN over every marker; interrupt() sets the wake key.
//
// On a Redis Cluster one BZPOPMIN may name keys of one slot only (CROSSSLOT otherwise), so each
// queue is a group of its own (its marker and the wake key in its slot share its hash tag), and
// the groups block IN PARALLEL, on up to MAX_BLOCKING_CONNECTIONS connections (lanes): group i
// on lane i % lanes. A lane with one group blocks on it until the wait's end; a lane with more
// (a supervisor serving more groups than lanes) rotates over them, each block cut to
// ROTATE_SLICE_MS, so its wake-up waits at most (its groups - 1) slices. The connection count
// stays bounded however many queues and partitions a supervisor serves.
//
// NO LOST WAKE-UP: a marker stays set until a waiter takes it, so a group looked at late still
// reports the work it got meanwhile; a marker a lane took while its wait was ending (another lane
// answered first, or interrupt()) is reported by that wait (`taken`); one a lane took once no
// wait was in progress (its block was in flight when the wait ended) is put back at once
// (putBack): the next wait may be long in coming (a full supervisor does not wait), and kept
// here it would keep a job due from every other supervisor.
// ANSWERED: a lane whose marker ended the wait blocks no more (`wanted` is emptied as the wait
// ends): a block started after the answer would take the next marker for a wait that is over.
// FRESH SET: a lane whose block in flight is on a group the new wait no longer gives it is cut
// (its wake key set), so it moves to its new groups at once.

import { duplicateClient, type RedisClient } from './redisClient.js';
import { randomUUID } from 'node:crypto';
import type { QueuesWaiter } from '../types.js';

/** How long one slot group is blocked on while others of its lane wait their turn (cluster only). */
export const ROTATE_SLICE_MS = 200;
/** Most blocking connections one waiter opens on a cluster (one per group up to this). */
export const MAX_BLOCKING_CONNECTIONS = 8;

export interface QueueWaitKeys {
  /** The queue's marker zset. */
  marker(queue: string): string;
  /** A wake key in the queue's slot, named by this waiter's id. */
  wake(queue: string, waiterId: string): string;
}

/** One blocking connection of a cluster waiter, and the block it has in flight. */
interface Lane {
  conn: RedisClient;
  /** Next group to block on, when the lane rotates. */
  turn: number;
  /** The queue of the block in flight (undefined: none). */
  blockingOn: string | undefined;
  /** Whether the lane's block loop runs (cleared in the loop's own last step, synchronously). */
  running: boolean;
}

export class RedisQueuesWaiter implements QueuesWaiter {
  private conn: RedisClient | undefined;
  private closed = false;
  private readonly id = randomUUID();
  /** The wake key of the block in flight (one node; undefined: none in flight). */
  private blockingOn: string | undefined;
  /** Cluster: the blocking connections, by lane. */
  private readonly lanes: Lane[] = [];
  /** Cluster: the queues of the wait in progress ([]: none), and when it ends. */
  private wanted: string[] = [];
  private deadline = 0;
  /** Cluster: queues whose marker a lane took, not yet reported (NO LOST WAKE-UP). */
  private readonly taken = new Set<string>();
  /** Cluster: ends the wait in progress with what was taken. */
  private finish: (() => void) | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: QueueWaitKeys,
    /** True on a Redis Cluster: one queue's slot per block. */
    private readonly cluster: boolean,
    private readonly onClose: (waiter: RedisQueuesWaiter) => void,
  ) {}

  async wait(queues: readonly string[], timeoutMs: number): Promise<string[]> {
    if (this.closed || queues.length === 0) return [];
    if (this.cluster) return this.waitOnLanes(queues, timeoutMs);
    if (!this.conn) this.conn = this.open();
    const wake = this.keys.wake(queues[0]!, this.id);
    const byMarker = new Map(queues.map((q) => [this.keys.marker(q), q]));
    this.blockingOn = wake;
    try {
      const r = await this.conn.bzpopmin(...byMarker.keys(), wake, Math.max(0.01, timeoutMs / 1000));
      const queue = r ? byMarker.get(r[0]) : undefined;
      return queue === undefined ? [] : [queue];
    } catch {
      // Closed (shutdown) or the connection dropped: either way the caller looks again, but
      // not in a tight loop while Redis is away.
      if (!this.closed) await pause(50);
      return [];
    } finally {
      this.blockingOn = undefined;
    }
  }

  putBack(queue: string): void {
    void this.redis.zadd(this.keys.marker(queue), 0, 'w').then(undefined, () => undefined);
  }

  interrupt(): void {
    if (this.closed) return;
    if (this.cluster) return this.finish?.();
    if (this.blockingOn !== undefined) this.cut(this.blockingOn);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.conn?.disconnect();
    this.conn = undefined;
    for (const lane of this.lanes) lane.conn.disconnect();
    this.finish?.();
    this.onClose(this);
  }

  private open(): RedisClient {
    const conn = duplicateClient(this.redis);
    conn.on('error', () => {
      // ioredis reconnects by itself; the wait in flight fails and is caught.
    });
    return conn;
  }

  /**
   * Sets a wake key, on the main connection (the blocked one is busy). Set after the block
   * ended, it makes the next block on that slot return at once with nothing: a spare look,
   * never a lost one. Expires on its own.
   */
  private cut(wake: string): void {
    void this.redis
      .multi()
      .zadd(wake, 0, 'w')
      .pexpire(wake, 60_000)
      .exec()
      .catch(() => undefined);
  }

  /** Cluster: the wait, answered by whichever lane takes a marker first. */
  private async waitOnLanes(queues: readonly string[], timeoutMs: number): Promise<string[]> {
    if (this.taken.size === 0) {
      // Sorted: the same set gives each lane the same groups, whatever order it comes in.
      this.wanted = [...queues].sort();
      this.deadline = Date.now() + timeoutMs;
      const n = Math.min(MAX_BLOCKING_CONNECTIONS, queues.length);
      const ended = new Promise<void>(
        (resolve) =>
          (this.finish = () => {
            // ANSWERED: the lanes stop at their next turn (a FRESH SET's next wait starts them).
            this.wanted = [];
            resolve();
          }),
      );
      const timer = setTimeout(() => this.finish?.(), timeoutMs);
      for (let k = 0; k < n; k++) {
        const lane = (this.lanes[k] ??= {
          conn: this.open(),
          turn: 0,
          blockingOn: undefined,
          running: false,
        });
        // FRESH SET: a block on a group this lane no longer has ends now.
        if (lane.blockingOn !== undefined && !this.groupsOf(k).includes(lane.blockingOn))
          this.cut(this.laneWake(lane.blockingOn, k));
        if (!lane.running) {
          lane.running = true;
          void this.block(lane, k);
        }
      }
      await ended;
      clearTimeout(timer);
      this.finish = undefined;
    }
    const out = [...this.taken];
    this.taken.clear();
    return out;
  }

  /** Lane `k`'s wake key in `queue`'s slot: a cut ends that lane's block, never another's. */
  private laneWake(queue: string, k: number): string {
    return this.keys.wake(queue, `${this.id}:${k}`);
  }

  /** The groups (queues) of lane `k` in the wait in progress. */
  private groupsOf(k: number): string[] {
    const n = Math.min(MAX_BLOCKING_CONNECTIONS, this.wanted.length);
    return this.wanted.filter((_, i) => i % n === k);
  }

  /** Lane `k`'s blocks, one group at a time, while a wait is in progress that gives it groups. */
  private async block(lane: Lane, k: number): Promise<void> {
    try {
      await this.blockWhileWanted(lane, k);
    } finally {
      lane.running = false;
    }
  }

  private async blockWhileWanted(lane: Lane, k: number): Promise<void> {
    for (;;) {
      const mine = this.groupsOf(k);
      const left = this.deadline - Date.now();
      if (this.closed || mine.length === 0 || left <= 0) return;
      const queue = mine[lane.turn++ % mine.length]!;
      const ms = mine.length > 1 ? Math.min(left, ROTATE_SLICE_MS) : left;
      lane.blockingOn = queue;
      try {
        const marker = this.keys.marker(queue);
        const r = await lane.conn.bzpopmin(marker, this.laneWake(queue, k), Math.max(0.01, ms / 1000));
        if (r && r[0] === marker) {
          // NO LOST WAKE-UP: no wait to report it to, put back (see the header).
          if (this.finish === undefined) this.putBack(queue);
          else {
            this.taken.add(queue);
            this.finish();
          }
        }
      } catch {
        if (!this.closed) await pause(50);
      } finally {
        lane.blockingOn = undefined;
      }
    }
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
