// The connections a RedisStore opens besides its main one, and their closing: the work and
// ingress waiters (one each per supervisor), the blocking readers (one per queue for events,
// one per watcher for results), and the one subscriber every control channel shares. A
// connection blocks one command at a time, so none of these may carry anything else.

import { duplicateClient, isCluster, type RedisClient } from './redisClient.js';
import type { QueuesWaiter, WorkWaiter } from '../types.js';
import { RedisWorkWaiter } from './RedisWorkWaiter.js';
import { RedisQueuesWaiter, type QueueWaitKeys } from './RedisQueuesWaiter.js';
import { ControlSubscriber } from './ControlSubscriber.js';

/** The `readers` key of a results watcher's connection. */
const resultsKey = (queue: string, watcherId: string): string => `results:${queue}:${watcherId}`;

export class RedisConnections {
  /** Open waiters (work: one per running supervisor; ingress), each on its own connection. */
  private readonly waiters = new Set<RedisWorkWaiter | RedisQueuesWaiter>();
  /** Blocking connections: one per queue for readEvents, one per watcher for readResults. */
  private readonly readers = new Map<string, RedisClient>();
  private closed = false;

  private readonly subscriber: ControlSubscriber;

  constructor(private readonly redis: RedisClient) {
    this.subscriber = new ControlSubscriber(redis);
  }

  /**
   * A waiter blocking on `key` (default BZPOPMIN, or `block`); closed at once when the store is.
   */
  waiter(
    key: string,
    block?: (conn: RedisClient, key: string, seconds: number) => Promise<unknown>,
  ): WorkWaiter {
    const waiter = new RedisWorkWaiter(this.redis, key, (w) => this.waiters.delete(w), block);
    if (this.closed) waiter.close();
    else this.waiters.add(waiter);
    return waiter;
  }

  /** A supervisor's wait for work on its queues (one connection, however many queues). */
  queuesWaiter(keys: QueueWaitKeys): QueuesWaiter {
    const waiter = new RedisQueuesWaiter(this.redis, keys, isCluster(this.redis), (w) =>
      this.waiters.delete(w),
    );
    if (this.closed) waiter.close();
    else this.waiters.add(waiter);
    return waiter;
  }

  /** The reader named `key`, opened by `open` (default: a duplicate of the main connection). */
  reader(key: string, open: () => RedisClient = () => this.quiet(duplicateClient(this.redis))): RedisClient {
    let reader = this.readers.get(key);
    if (!reader) this.readers.set(key, (reader = open()));
    return reader;
  }

  /** A results watcher's reader (RedisStore.readResults), opened by `open`. */
  resultsReader(queue: string, watcherId: string, open: () => RedisClient): RedisClient {
    return this.reader(resultsKey(queue, watcherId), open);
  }

  endResults(queue: string, watcherId: string): void {
    const key = resultsKey(queue, watcherId);
    this.readers.get(key)?.disconnect();
    this.readers.delete(key);
  }

  /** Listens on `channel` (one subscriber for all channels, ControlSubscriber.ts); returns the unsubscribe. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>> {
    return this.subscriber.subscribe(channel, onMessage);
  }

  close(): void {
    this.closed = true;
    for (const w of [...this.waiters]) w.close();
    for (const r of this.readers.values()) r.disconnect();
    this.readers.clear();
    this.subscriber.close();
  }

  /** ioredis reconnects by itself; a command in flight fails to its caller. */
  private quiet(conn: RedisClient): RedisClient {
    conn.on('error', () => {});
    return conn;
  }
}
