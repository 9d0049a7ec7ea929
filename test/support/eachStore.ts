// Runs one suite of Supervisor/Client cases on both stores: once on a RedisStore (a private
// redis-server for the file, a fresh key prefix per case: harness.ts) and once on a MemoryStore
// (memoryHarness.ts), so a behaviour that does not depend on the store is proved on each.
// The body gets a world maker and the store's name (for a case that one store cannot pass yet:
// mark it `todo` with the reason, never leave it out). A case that looks at what only Redis has
// (raw keys, TTLs, Redis TIME, a restart) belongs in a file of test/redis/ instead.

import { after, before, describe } from 'node:test';
import type { Store } from '../../src/store/types.js';
import type { StoreOptions } from '../store/conformance/storeFactory.js';
import { Harness } from './harness.js';
import { MemoryHarness } from './memoryHarness.js';
import { startRedis, type TestRedis } from './redis.js';
import type { StoreWorld } from './storeWorld.js';

export type StoreName = 'RedisStore' | 'MemoryStore';

/** The queue's status indexes, named as both stores name them (a zset key; QueueState.index). */
export type StatusIndex = 'queued' | 'delayed' | 'active' | 'done' | 'failed' | 'cancelled' | 'dead';

/** One case's world on either store. */
export interface AnyStoreWorld extends StoreWorld<Store> {
  /** The job's score in one of its queue's status indexes, or null when it is not in it. */
  indexScore(index: StatusIndex, id: string, queue?: string): Promise<number | null>;
  /** Whether the job's record is set to expire (a TTL on Redis, an expiry time in memory). */
  expires(id: string, queue?: string): Promise<boolean>;
  /** What is stored for this world (keys under its prefix on Redis; job ids, idempotency keys and
   * event streams in memory): empty when nothing was written. */
  storedKeys(): Promise<string[]>;
  /**
   * Deletes the job's record and nothing else, as a Redis eviction or an operator's DEL would
   * (no path of the product deletes a record that is still in an index but a finished one's).
   */
  vanish(id: string, queue?: string): Promise<void>;
  close(): Promise<void>;
}

class RedisWorld extends Harness implements AnyStoreWorld {
  async indexScore(index: StatusIndex, id: string, queue = 'default'): Promise<number | null> {
    const score = await this.raw.zscore(this.key(index, queue), id);
    return score === null ? null : Number(score);
  }

  async expires(id: string, queue = 'default'): Promise<boolean> {
    return (await this.raw.pttl(this.key(`job:${id}`, queue))) > 0;
  }

  storedKeys(): Promise<string[]> {
    return this.keys();
  }

  async vanish(id: string, queue = 'default'): Promise<void> {
    await this.raw.del(this.key(`job:${id}`, queue));
  }
}

/** What of a MemoryStore's queues the world reads (its MemoryCore's QueueState by name). */
interface MemoryQueues {
  queueData: Map<
    string,
    {
      index: Record<StatusIndex, { score(member: string): number | undefined }>;
      jobs: Map<string, { expiresAt?: number }>;
      idempotency: Map<string, unknown>;
      events: unknown[];
    }
  >;
}

/** The queues a MemoryStore holds (MemoryCore.queueData, behind the store's private `core`). */
function queuesOf(store: unknown): MemoryQueues['queueData'] {
  return (store as { core: MemoryQueues }).core.queueData;
}

class MemoryWorld extends MemoryHarness implements AnyStoreWorld {
  async indexScore(index: StatusIndex, id: string, queue = 'default'): Promise<number | null> {
    const q = queuesOf(this.store).get(queue);
    return q?.index[index].score(id) ?? null;
  }

  async expires(id: string, queue = 'default'): Promise<boolean> {
    const q = queuesOf(this.store).get(queue);
    return q?.jobs.get(id)?.expiresAt !== undefined;
  }

  async storedKeys(): Promise<string[]> {
    const queues = queuesOf(this.store);
    return [...queues].flatMap(([name, q]) => [
      ...[...q.jobs.keys()].map((id) => `${name}:job:${id}`),
      ...[...q.idempotency.keys()].map((k) => `${name}:idem:${k}`),
      ...(q.events.length ? [`${name}:events`] : []),
    ]);
  }

  async vanish(id: string, queue = 'default'): Promise<void> {
    queuesOf(this.store).get(queue)?.jobs.delete(id);
  }
}

export type WorldMaker = (options?: StoreOptions) => AnyStoreWorld;

/** `describe(title)` twice: on a RedisStore, then on a MemoryStore. */
export function describeOnEachStore(
  title: string,
  body: (world: WorldMaker, store: StoreName) => void,
): void {
  describe(`${title} (RedisStore)`, () => {
    let redis: TestRedis;
    before(async () => (redis = await startRedis()));
    after(async () => redis.stop());
    body((options) => new RedisWorld(redis, options), 'RedisStore');
  });
  describe(`${title} (MemoryStore)`, () => {
    body((options) => new MemoryWorld(options), 'MemoryStore');
  });
}
