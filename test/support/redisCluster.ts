// A private 3-master Redis Cluster for one test file (examples/privateRedisCluster.ts, ~2.5 s to
// start), and what tests on it need: the store options that reach it, and queue names whose
// slots are served by different masters (so a cross-queue case really crosses shards); and
// clusterSuite, the per-file setup of the cluster test files.

import { after, afterEach, before } from 'node:test';
import { Cluster } from 'ioredis';
import { Harness } from './harness.js';
import { startRedisCluster, type PrivateRedisCluster } from '../../examples/privateRedisCluster.js';
import type { RedisClusterOptions } from '../../src/store/redis/redisStoreOptions.js';

export interface TestRedisCluster {
  readonly kind: 'cluster';
  readonly cluster: PrivateRedisCluster;
  /** `{ nodes }`: what RedisStore's `cluster` option takes to reach it. */
  readonly options: RedisClusterOptions;
  /** A plain cluster client, for looking at keys; the caller disconnects it. */
  client(): Cluster;
  /** host:port of the master serving `key`'s slot. */
  ownerOf(key: string): Promise<string>;
  /**
   * `count` queue names, each served by a different master (`<prefix>:{<queue>}:...` keys): pick
   * from `candidates` (default q0, q1, ...) in order.
   */
  queuesOnDistinctMasters(count: number, candidates?: string[]): Promise<string[]>;
  stop(): Promise<void>;
}

/** `replicas` per master: a failover test kills a master and waits for its replica's promotion. */
export async function startCluster(masters = 3, replicas = 0): Promise<TestRedisCluster> {
  const cluster = await startRedisCluster({ masters, replicas });
  const nodes = cluster.seeds.map((s) => ({ ...s }));
  const probe = new Cluster(nodes);
  probe.on('error', () => {});
  const ownerOf = async (key: string): Promise<string> => {
    const slot = Number(await probe.call('CLUSTER', 'KEYSLOT', key));
    const ranges = (await probe.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    if (!range) throw new Error(`no master serves slot ${slot}`);
    return `${range[2][0]}:${range[2][1]}`;
  };
  return {
    kind: 'cluster',
    cluster,
    options: { nodes },
    client: () => {
      const c = new Cluster(nodes);
      c.on('error', () => {});
      return c;
    },
    ownerOf,
    async queuesOnDistinctMasters(count, candidates = Array.from({ length: 64 }, (_, i) => `q${i}`)) {
      const picked = new Map<string, string>();
      for (const q of candidates) {
        const owner = await ownerOf(`{${q}}`);
        if (!picked.has(owner)) picked.set(owner, q);
        if (picked.size === count) return [...picked.values()];
      }
      throw new Error(`no ${count} of the candidate queues land on ${count} different masters`);
    },
    async stop() {
      probe.disconnect();
      await cluster.stop();
    },
  };
}

/** What a cluster test file's cases share (clusterSuite). */
export interface ClusterSuite {
  /** The file's one cluster (set once before() has run). */
  readonly cluster: TestRedisCluster;
  /** Queue names served by distinct masters (set once before() has run). */
  readonly queues: string[];
  /** A Harness on the cluster for this case (a key prefix of its own), closed after the case. */
  harness(storeOptions?: ConstructorParameters<typeof Harness>[1]): Harness;
}

/**
 * The setup every cluster test file repeated: ONE cluster for the whole file (a start is about
 * 2.5 s, so never one per case), `queueCount` queues on distinct masters, a fresh Harness per
 * case stopped after it, the cluster stopped after the file. Call it in a describe() body.
 */
export function clusterSuite(queueCount = 3): ClusterSuite {
  let cluster: TestRedisCluster | undefined;
  let queues: string[] = [];
  const open: Harness[] = [];
  before(async () => {
    cluster = await startCluster();
    queues = await cluster.queuesOnDistinctMasters(queueCount);
  });
  after(async () => cluster?.stop());
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()));
  });
  const started = (): TestRedisCluster => {
    if (!cluster) throw new Error('clusterSuite: the cluster starts in before(); use it inside a case');
    return cluster;
  };
  return {
    get cluster() {
      return started();
    },
    get queues() {
      return queues;
    },
    harness(storeOptions) {
      const h = new Harness(started(), storeOptions);
      open.push(h);
      return h;
    },
  };
}
