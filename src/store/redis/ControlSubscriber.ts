// The one subscriber connection a store's control channels share: the 'cancel <id>', 'event <id>'
// and 'fanin <id>' messages for the jobs a worker runs (src/supervisor/controlChannel.ts), which
// the scripts publish through lua/include/publishControl.lua.
//
// SHARDED WHERE THE SERVER HAS IT: a channel `<prefix>:{<queue>}:ctl:<worker>` carries its
// queue's hash tag, so it lives in the queue's slot. With sharded pub/sub (SPUBLISH/SSUBSCRIBE,
// Redis 7+ and Valkey) a message stays on the shard that owns that slot; a classic PUBLISH on a
// cluster is copied to every node over the cluster bus. Both ends ask the server the same
// question, "do you know SPUBLISH?": the script tries SPUBLISH and falls back to PUBLISH, and
// this class tries SSUBSCRIBE and falls back to SUBSCRIBE, so they agree on any server. On a
// cluster the sharded subscriber is an ioredis Cluster with `shardedSubscribers` (one connection
// per master, following slot moves); on one node it is one connection.
//
// The messages are a fast path: a worker that misses one (a reconnect, a failover) still learns
// of a cancel at its next heartbeat and of events and fan-ins when its job parks or is woken.

import { duplicateClient, isCluster, type RedisClient } from './redisClient.js';

type Listener = (message: string) => void;

const UNKNOWN_COMMAND = /unknown command/i;

export class ControlSubscriber {
  private conn: RedisClient | undefined;
  private sharded = true;
  /** Subscribes and unsubscribes run one at a time: the first decides sharded or classic. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Map<string, Set<Listener>>();
  private closed = false;

  constructor(private readonly redis: RedisClient) {}

  /** Listens on `channel`; returns the unsubscribe. */
  subscribe(channel: string, onMessage: Listener): Promise<() => Promise<void>> {
    return this.serial(async () => {
      let set = this.listeners.get(channel);
      if (!set) {
        this.listeners.set(channel, (set = new Set()));
        try {
          await this.listen(channel);
        } catch (err) {
          this.listeners.delete(channel);
          throw err;
        }
      }
      set.add(onMessage);
      return () => this.serial(() => this.drop(channel, onMessage));
    });
  }

  /** Whether messages come over sharded pub/sub (known after the first subscribe). */
  get isSharded(): boolean {
    return this.sharded;
  }

  close(): void {
    this.closed = true;
    this.conn?.disconnect();
    this.conn = undefined;
  }

  private async listen(channel: string): Promise<void> {
    if (this.sharded) {
      try {
        await this.open().ssubscribe(channel);
        return;
      } catch (err) {
        if (!UNKNOWN_COMMAND.test(String((err as Error).message))) throw err;
        // A server without sharded pub/sub: its scripts PUBLISH (publishControl.lua).
        this.sharded = false;
        this.conn?.disconnect();
        this.conn = undefined;
      }
    }
    await this.open().subscribe(channel);
  }

  private async drop(channel: string, onMessage: Listener): Promise<void> {
    const set = this.listeners.get(channel);
    if (!set?.delete(onMessage) || set.size > 0) return;
    this.listeners.delete(channel);
    const conn = this.conn;
    if (!conn) return;
    await (this.sharded ? conn.sunsubscribe(channel) : conn.unsubscribe(channel)).catch(() => undefined);
  }

  private open(): RedisClient {
    if (this.conn) return this.conn;
    if (this.closed) throw new Error('the store is closed');
    const conn =
      this.sharded && isCluster(this.redis)
        ? duplicateClient(this.redis, {}, { shardedSubscribers: true })
        : duplicateClient(this.redis);
    conn.on('error', () => {
      // ioredis reconnects (and subscribes again) by itself.
    });
    const deliver = (channel: string, message: string) => {
      for (const l of this.listeners.get(channel) ?? []) l(message);
    };
    conn.on(this.sharded ? 'smessage' : 'message', deliver);
    return (this.conn = conn);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
