// What RedisStore's role methods run on: its connections (the supervisors' one that waits an
// outage out, the fail-fast one for client calls, and the blocking readers' own), its settings
// and key names, the data-format check, and what it reports of the server and the connection
// (the ServerChecks and ConnectionEvents roles). RedisStore.ts holds the other roles.

import { assertQueueName, queueKeys, type QueueKeys } from '../keys.js';
import type { ConnectionChange } from '../types.js';
import { redisContext, type RedisContext } from './RedisContext.js';
import { BoundedCalls } from './BoundedCalls.js';
import { ConnectionWatch } from './ConnectionWatch.js';
import { RedisConnections } from './RedisConnections.js';
import * as serverOps from './serverOps.js';
import { ensureFormat } from './formatOps.js';
import { resolveRedisStoreOptions, type RedisStoreOptions } from './redisStoreOptions.js';
import type { RedisClient } from './redisClient.js';

export class RedisStoreBase {
  readonly kind = 'redis';
  readonly prefix: string;
  /** The supervisors' connection: one node's, or a cluster's (redisClient.ts). */
  readonly redis: RedisClient;
  protected readonly idemTtlMs: number;
  protected readonly keyCache = new Map<string, QueueKeys>();
  protected readonly knownQueues = new Set<string>();
  /** The data format was found to be the code's (checkFormat), on this connection. */
  protected formatChecked = false;
  /** ... at least once: a stamp missing since is data Redis lost, and is written again. */
  protected formatSeen = false;
  /** Waiters, blocking readers and the control subscriber: connections of their own. */
  protected readonly connections: RedisConnections;
  protected readonly ctx: RedisContext;
  /** Client calls: a fail-fast connection, retried until `commandTimeoutMs`. */
  protected readonly calls: BoundedCalls;
  protected readonly connection: ConnectionWatch;
  /** How long a client call keeps trying before REDIS_UNAVAILABLE (`RedisStoreOptions.commandTimeoutMs`). */
  readonly commandTimeoutMs: number;
  readonly finishedTtlMs: number;

  constructor(options: RedisStoreOptions = {}) {
    const o = resolveRedisStoreOptions(options);
    this.prefix = o.prefix;
    this.finishedTtlMs = o.finishedTtlMs;
    this.idemTtlMs = o.idempotencyTtlMs;
    this.commandTimeoutMs = o.commandTimeoutMs;
    this.redis = o.connect();
    this.redis.on('error', () => {
      // ioredis reconnects by itself; a command in flight fails to its caller.
    });
    // ioredis reconnects by itself and re-sends what was waiting; the watch reports outages.
    this.connection = new ConnectionWatch(this.redis);
    // The server may have lost its data (a restart without AOF, a failover): queues this
    // store added to the queue set are added again on their next enqueue.
    this.connection.onReconnect(() => {
      this.knownQueues.clear();
      this.formatChecked = false;
    });
    this.connections = new RedisConnections(this.redis);
    const settings = { ...o, keys: (queue: string) => this.keys(queue) };
    this.ctx = redisContext(this.redis, settings);
    this.calls = new BoundedCalls(this.redis, this.commandTimeoutMs, (conn) => redisContext(conn, settings));
  }

  /** See Store.watchConnection: the supervisors' connection going unreachable and back. */
  watchConnection(listener: (change: ConnectionChange) => void): () => void {
    return this.connection.watch(listener);
  }

  keys(queue: string): QueueKeys {
    let k = this.keyCache.get(queue);
    if (!k) {
      assertQueueName(queue);
      k = queueKeys(this.prefix, queue);
      this.keyCache.set(queue, k);
    }
    return k;
  }
  /** Runs one of lua/ on the supervisors' connection (tests call scripts directly through it). */
  protected run(name: string, keys: string[], args: (string | number)[]): Promise<any> {
    return this.ctx.run(name, keys, args);
  }

  evictionPolicy(): Promise<string | null> {
    return serverOps.evictionPolicy(this.redis);
  }

  appendOnly(): Promise<boolean | null> {
    return serverOps.appendOnly(this.redis);
  }

  /** See Store.checkFormat: once per connection (a server that lost its data is checked again). */
  async checkFormat(redis: RedisClient = this.redis): Promise<void> {
    if (this.formatChecked) return;
    await ensureFormat(redis, this.prefix, this.formatSeen);
    this.formatChecked = this.formatSeen = true;
  }

  onReconnect(listener: () => void): () => void {
    return this.connection.onReconnect(listener);
  }

  async close(): Promise<void> {
    this.connections.close();
    this.connection.close();
    this.calls.close();
    await serverOps.quit(this.redis);
  }
}
