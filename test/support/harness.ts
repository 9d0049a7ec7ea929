// One test's world: a store on a fresh key prefix, supervisors and clients made through it, and
// a cleanup that stops every one of them (a test that fails half-way leaves nothing running).

import { Redis, type Cluster } from 'ioredis';
import { RedisStore } from '../../src/index.js';
import type { RedisStoreOptions } from '../../src/index.js';
import { uniquePrefix, type TestRedis } from './redis.js';
import type { TestRedisCluster } from './redisCluster.js';
import { StoreWorld } from './storeWorld.js';

export { FAST } from './storeWorld.js';

/** A private redis-server (redis.ts) or a private 3-master cluster (redisCluster.ts). */
export type TestServer = TestRedis | TestRedisCluster;

export function isTestCluster(server: TestServer): server is TestRedisCluster {
  return 'kind' in server && server.kind === 'cluster';
}

/** The RedisStore options that reach `server`. */
export function serverOptions(server: TestServer): Pick<RedisStoreOptions, 'url' | 'cluster'> {
  return isTestCluster(server) ? { cluster: server.options } : { url: server.url };
}

export class Harness extends StoreWorld<RedisStore> {
  readonly prefix: string;
  /** A plain connection for looking at (or hand-writing) keys (a cluster client on a cluster:
   * typed as one node's, whose key commands it routes alike). */
  readonly raw: Redis;
  private readonly stores: RedisStore[];

  constructor(
    readonly redis: TestServer,
    storeOptions: Omit<RedisStoreOptions, 'url' | 'prefix' | 'cluster'> = {},
  ) {
    const prefix = uniquePrefix();
    const store = new RedisStore({ ...serverOptions(redis), prefix, ...storeOptions });
    super(store);
    this.prefix = prefix;
    this.stores = [store];
    this.raw = isTestCluster(redis) ? (redis.client() as unknown as Redis) : new Redis(redis.url);
  }

  newStore(options: Omit<RedisStoreOptions, 'url' | 'prefix' | 'cluster'> = {}): RedisStore {
    const s = new RedisStore({ ...serverOptions(this.redis), prefix: this.prefix, ...options });
    this.stores.push(s);
    return s;
  }

  /** Key of the queue's index or of one job, as the store lays them out. */
  key(name: string, queue = 'default'): string {
    return `${this.prefix}:{${queue}}:${name}`;
  }

  /**
   * Whether job `id` is in its queue's runnable line: the `queued` zset or the ready list (format
   * 3, lua/include/lcReady.lua; an entry marked stale in `readygone` does not count).
   */
  async inLine(id: string, queue = 'default'): Promise<boolean> {
    if ((await this.raw.zscore(this.key('queued', queue), id)) !== null) return true;
    const entries = (await this.raw.lrange(this.key('ready', queue), 0, -1)).filter((e) => e === id).length;
    const stale = Number(await this.raw.hget(this.key('readygone', queue), id)) || 0;
    return entries > stale;
  }

  /** The queue's runnable ids as a claim takes them: the zset and the ready list merged by `qs`. */
  async line(queue = 'default'): Promise<string[]> {
    const z = await this.raw.zrange(this.key('queued', queue), '0', '-1', 'WITHSCORES');
    const out: [string, number][] = [];
    for (let i = 0; i < z.length; i += 2) out.push([z[i]!, Number(z[i + 1])]);
    const stale = new Map(Object.entries(await this.raw.hgetall(this.key('readygone', queue))));
    for (const id of await this.raw.lrange(this.key('ready', queue), 0, -1)) {
      const n = Number(stale.get(id) ?? 0);
      if (n > 0) {
        stale.set(id, String(n - 1));
        continue;
      }
      out.push([id, Number(await this.raw.hget(this.key(`job:${id}`, queue), 'qs'))]);
    }
    return out.sort((a, b) => a[1] - b[1]).map(([id]) => id);
  }

  /**
   * Claims up to `max` jobs as a worker that is not running (a test playing a worker that
   * stalled or died): the claimed jobs, each with its lease token.
   */
  async claimAs(workerId = 'w', options: { max?: number; leaseMs?: number; queue?: string } = {}) {
    const res = await this.store.commit(options.queue ?? 'default', [], {
      workerId,
      max: options.max ?? 1,
      leaseMs: options.leaseMs ?? 30_000,
      loadMachines: [],
    });
    return res.claimed;
  }

  /** Every key under this test's prefix (on a cluster, SCAN on each master). */
  async keys(): Promise<string[]> {
    const out: string[] = [];
    // A cluster client knows its masters once it has connected (any keyed command connects it).
    if (isTestCluster(this.redis)) await this.raw.exists(this.prefix);
    const nodes = isTestCluster(this.redis) ? (this.raw as unknown as Cluster).nodes('master') : [this.raw];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
        cursor = next;
        out.push(...batch);
      } while (cursor !== '0');
    }
    return out;
  }

  async close(): Promise<void> {
    await this.stopAll();
    await Promise.all(this.stores.map((s) => s.close()));
    this.raw.disconnect();
  }
}

/** A promise with its resolver outside, for gating work from a test. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((r) => (open = r));
  return { promise, open };
}

/** Resolves when the signal fires (work that waits to be aborted). */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
