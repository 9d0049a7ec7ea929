// A private Redis Cluster for workload 10 (examples/privateRedisCluster.ts), seen shard by shard:
// a plain connection to each master (its INFO cpu and commandstats are that shard's figures), and
// which master serves a key, so that queues can be picked one per master and a done index polled
// on the node that holds it.

import { Redis } from 'ioredis';
import { startRedisCluster } from '../examples/privateRedisCluster.js';

export interface BenchShard {
  host: string;
  port: number;
  /** A plain (not cluster) connection to this master: INFO, CONFIG RESETSTAT, FLUSHALL, ZCARD. */
  ctl: Redis;
  /** The slot range(s) it serves. */
  ranges: [number, number][];
}

export interface BenchCluster {
  /** host:port of every node: the worker's and the client's `cluster.nodes`. */
  seeds: { host: string; port: number }[];
  shards: BenchShard[];
  /** The shard serving `key`'s slot (CLUSTER KEYSLOT). */
  shardOf(key: string): Promise<BenchShard>;
  stop(): Promise<void>;
}

/** `extraArgs`: more redis-server options for every node (BENCH_AOF's appendonly). */
export async function startBenchCluster(masters: number, extraArgs: string[] = []): Promise<BenchCluster> {
  const cluster = await startRedisCluster({
    masters,
    replicas: 0,
    extraArgs: ['--loglevel', 'warning', ...extraArgs],
  });
  const shards: BenchShard[] = [];
  try {
    const seeds = cluster.seeds.map((s) => ({ ...s }));
    for (const m of await cluster.masters()) {
      const ctl = new Redis({ host: m.host, port: m.port, maxRetriesPerRequest: null });
      ctl.on('error', () => {});
      shards.push({ ...m, ctl, ranges: [] });
    }
    const slots = (await shards[0]!.ctl.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    for (const [from, to, [, port]] of slots) shards.find((s) => s.port === port)?.ranges.push([from, to]);
    return {
      seeds,
      shards,
      async shardOf(key) {
        const slot = Number(await shards[0]!.ctl.call('CLUSTER', 'KEYSLOT', key));
        const shard = shards.find((s) => s.ranges.some(([from, to]) => slot >= from && slot <= to));
        if (!shard) throw new Error(`no master serves slot ${slot} (key ${key})`);
        return shard;
      },
      async stop() {
        shards.forEach((s) => s.ctl.disconnect());
        await cluster.stop();
      },
    };
  } catch (err) {
    shards.forEach((s) => s.ctl.disconnect());
    await cluster.stop();
    throw err;
  }
}

/** `count` names from `candidates`, in order, whose hash tags `{name}` land on different masters. */
export async function namesOnDistinctShards(
  cluster: BenchCluster,
  count: number,
  candidates: string[],
): Promise<string[]> {
  const picked = new Map<number, string>();
  for (const name of candidates) {
    const owner = (await cluster.shardOf(`{${name}}`)).port;
    if (!picked.has(owner)) picked.set(owner, name);
    if (picked.size === count) return [...picked.values()];
  }
  throw new Error(`no ${count} of ${candidates.length} candidate names land on ${count} different masters`);
}

/**
 * The first queue name from `candidates` whose `partitions` partitions (`{q#0}`..) land on
 * different masters: a name picked as a user sizing the cluster would (3 names at random land on
 * 3 masters of 3 only 2 times in 9).
 */
export async function partitionedOnDistinctShards(
  cluster: BenchCluster,
  partitions: number,
  candidates: string[],
): Promise<string> {
  for (const name of candidates) {
    const owners = new Set<number>();
    for (let i = 0; i < partitions; i++) owners.add((await cluster.shardOf(`{${name}#${i}}`)).port);
    if (owners.size === partitions) return name;
  }
  throw new Error(`no candidate queue's ${partitions} partitions land on ${partitions} different masters`);
}
