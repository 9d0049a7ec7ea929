// The connections a RedisStore opens besides its main one, and their closing: the work and
// ingress waiters (one each per supervisor), the blocking readers (one per queue for events,
// one per watcher for results), and the one subscriber every control channel shares. A
// connection blocks one command at a time, so none of these may carry anything else.

import type { Redis } from 'ioredis';
import type { QueuesWaiter, WorkWaiter } from '../types.js';
import { RedisWorkWaiter } from './RedisWorkWaiter.js';
import { RedisQueuesWaiter, type QueueWaitKeys } from './RedisQueuesWaiter.js';

/** The `readers` key of a results watcher's connection. */
const resultsKey = (queue: string, watcherId: string): string => `results:${queue}:${watcherId}`;

export class RedisConnections {
  /** Open waiters (work: one per running supervisor; ingress), each on its own connection. */
  private readonly waiters = new Set<RedisWorkWaiter | RedisQueuesWaiter>();
  /** Blocking connections: one per queue for readEvents, one per watcher for readResults. */
  private readonly readers = new Map<string, Redis>();
  private subscriber: Redis | undefined;
  private closed = false;

  constructor(private readonly redis: Redis) {}

  /**
   * A waiter blocking on `key` (default BZPOPMIN, or `block`); closed at once when the store is.
   */
  waiter(key: string, block?: (conn: Redis, key: string, seconds: number) => Promise<unknown>): WorkWaiter {
    const waiter = new RedisWorkWaiter(this.redis, key, (w) => this.waiters.delete(w), block);
    if (this.closed) waiter.close();
    else this.waiters.add(waiter);
    return waiter;
  }

  /** A supervisor's wait for work on its queues (one connection, however many queues). */
  queuesWaiter(keys: QueueWaitKeys): QueuesWaiter {
    const cluster = (this.redis as { isCluster?: boolean }).isCluster === true;
    const waiter = new RedisQueuesWaiter(this.redis, keys, cluster, (w) => this.waiters.delete(w));
    if (this.closed) waiter.close();
    else this.waiters.add(waiter);
    return waiter;
  }

  /** The reader named `key`, opened by `open` (default: a duplicate of the main connection). */
  reader(key: string, open: () => Redis = () => this.quiet(this.redis.duplicate())): Redis {
    let reader = this.readers.get(key);
    if (!reader) this.readers.set(key, (reader = open()));
    return reader;
  }

  /** A results watcher's reader (RedisStore.readResults), opened by `open`. */
  resultsReader(queue: string, watcherId: string, open: () => Redis): Redis {
    return this.reader(resultsKey(queue, watcherId), open);
  }

  endResults(queue: string, watcherId: string): void {
    const key = resultsKey(queue, watcherId);
    this.readers.get(key)?.disconnect();
    this.readers.delete(key);
  }

  /** Listens on `channel` (one subscriber connection for all channels); returns the unsubscribe. */
  async subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>> {
    if (!this.subscriber) this.subscriber = this.quiet(this.redis.duplicate());
    const subscriber = this.subscriber;
    const listener = (ch: string, msg: string) => {
      if (ch === channel) onMessage(msg);
    };
    subscriber.on('message', listener);
    await subscriber.subscribe(channel);
    return async () => {
      subscriber.off('message', listener);
      await subscriber.unsubscribe(channel).catch(() => undefined);
    };
  }

  close(): void {
    this.closed = true;
    for (const w of [...this.waiters]) w.close();
    for (const r of this.readers.values()) r.disconnect();
    this.readers.clear();
    this.subscriber?.disconnect();
  }

  /** ioredis reconnects by itself; a command in flight fails to its caller. */
  private quiet(conn: Redis): Redis {
    conn.on('error', () => {});
    return conn;
  }
}
