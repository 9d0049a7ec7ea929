// One test's world: a store on a fresh key prefix, supervisors and clients made through it, and
// a cleanup that stops every one of them (a test that fails half-way leaves nothing running).

import { Redis } from 'ioredis';
import { RedisStore } from '../../src/index.js';
import type { RedisStoreOptions } from '../../src/index.js';
import { uniquePrefix, type TestRedis } from './redis.js';
import { StoreWorld } from './storeWorld.js';

export { FAST } from './storeWorld.js';

export class Harness extends StoreWorld<RedisStore> {
  readonly prefix: string;
  /** A plain connection for looking at (or hand-writing) keys. */
  readonly raw: Redis;
  private readonly stores: RedisStore[];

  constructor(
    readonly redis: TestRedis,
    storeOptions: Omit<RedisStoreOptions, 'url' | 'prefix'> = {},
  ) {
    const prefix = uniquePrefix();
    const store = new RedisStore({ url: redis.url, prefix, ...storeOptions });
    super(store);
    this.prefix = prefix;
    this.stores = [store];
    this.raw = new Redis(redis.url);
  }

  newStore(options: Omit<RedisStoreOptions, 'url' | 'prefix'> = {}): RedisStore {
    const s = new RedisStore({ url: this.redis.url, prefix: this.prefix, ...options });
    this.stores.push(s);
    return s;
  }

  /** Key of the queue's index or of one job, as the store lays them out. */
  key(name: string, queue = 'default'): string {
    return `${this.prefix}:{${queue}}:${name}`;
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

  /** Every key under this test's prefix. */
  async keys(): Promise<string[]> {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.raw.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
      cursor = next;
      out.push(...batch);
    } while (cursor !== '0');
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
