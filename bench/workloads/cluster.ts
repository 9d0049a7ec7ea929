// Workload 10: the no-op throughput run (fill N jobs, then one worker process at c=100 drains
// them) on one node, on a 1-shard Redis Cluster (the cost of cluster mode itself), and on a
// 3-master cluster with 3 queues (one per master, one supervisor serving all three: what a user
// who spreads work over queues runs) and with one queue of 3 partitions (one per master). Per
// shard: Redis CPU per job (INFO cpu deltas of each master over enqueue + processing), so the
// spread (busiest shard / mean) and the Redis-bound ceiling of a fleet (1e6 / the busiest shard's
// us per job) are known although 2 cores cannot run 3 saturated shards side by side.
// BullMQ runs on one node and on 3 queues over 3 shards (one queue per `{prefix}`, its users' way
// to scale on a cluster); it cannot split one queue.

import { Queue } from 'bullmq';
import { Cluster, type Redis } from 'ioredis';
import { Client, RedisStore, defineJob } from '../../src/index.js';
import { BULK, N, REPS, aofArgs } from '../config.js';
import { JOB_NAME, MACHINIST_PREFIX, QUEUE, type SystemName } from '../common.js';
import { aofMode, log, orderFor, redis, spawnWorkers } from '../harness.js';
import { fmt, row } from '../results.js';
import { commandStats, redisCpuSeconds } from '../redis.js';
import {
  namesOnDistinctShards,
  partitionedOnDistinctShards,
  startBenchCluster,
  type BenchCluster,
} from '../cluster.js';

const PARTITIONS = 3;
const CONCURRENCY = 100;

/** Where one setup runs: its Redis nodes, and the queues filled and served. */
interface Setup {
  label: string;
  systems: SystemName[];
  /** The masters (one node: the private redis-server). */
  shards: { ctl: Redis }[];
  /** Cluster seeds; undefined on one node. */
  cluster?: BenchCluster;
  /** The queues the fill spreads the jobs over, round robin (a partitioned queue: its name). */
  queues: string[];
  /** Partitions of queues[0] (configured before each run), else 1. */
  partitions: number;
}

interface ClusterRun {
  jobsPerSec: number;
  /** Redis CPU per job (of all N jobs) on each shard, us, over enqueue + processing. */
  shardCpuUsPerJob: number[];
  cmdsPerJob: number;
  /** The worker process's CPU per job, us: where a cluster client's own cost shows. */
  workerCpuUsPerJob: number;
}

const noop = defineJob({ name: JOB_NAME, work: async () => undefined });

/** The stored queues a setup's jobs end in (a partitioned queue: its partitions). */
function storedQueues(s: Setup): string[] {
  return s.partitions > 1 ? Array.from({ length: s.partitions }, (_, i) => `${s.queues[0]}#${i}`) : s.queues;
}

/** Each stored queue's index of finished jobs, and the shard that holds it. */
async function doneKeys(system: SystemName, s: Setup): Promise<{ ctl: Redis; key: string }[]> {
  return Promise.all(
    storedQueues(s).map(async (q) => {
      const key =
        system === 'machinist'
          ? `${MACHINIST_PREFIX}:{${q}}:done`
          : s.cluster
            ? `{${q}}:${q}:completed`
            : `bull:${q}:completed`;
      return { key, ctl: s.cluster ? (await s.cluster.shardOf(key)).ctl : s.shards[0]!.ctl };
    }),
  );
}

/** Fills the setup's queues with `n` no-op jobs (batches of BULK, round robin over the queues). */
async function fill(system: SystemName, s: Setup, n: number): Promise<void> {
  const batches = Array.from({ length: Math.ceil(n / BULK) }, (_, b) => Math.min(BULK, n - b * BULK));
  if (system === 'machinist') {
    const store = new RedisStore({
      ...(s.cluster ? { cluster: { nodes: s.cluster.seeds } } : { url: redis.url }),
      prefix: MACHINIST_PREFIX,
    });
    const client = new Client({ store, jobs: [noop] });
    try {
      let turn = 0;
      for (const k of batches)
        await client.enqueueMany(
          Array.from({ length: k }, () => ({
            machine: JOB_NAME,
            input: {},
            options: { queue: s.queues[turn++ % s.queues.length]! },
          })),
        );
    } finally {
      client.close();
      await store.close();
    }
    return;
  }
  const connection = s.cluster
    ? new Cluster(s.cluster.seeds, { redisOptions: { maxRetriesPerRequest: null } })
    : { host: redis.host, port: redis.port };
  const queues = s.queues.map(
    (q) => new Queue(q, { connection, ...(s.cluster ? { prefix: `{${q}}` } : {}) }),
  );
  try {
    for (const k of batches)
      await Promise.all(
        queues.map((queue, i) => {
          const share = Math.floor(k / queues.length) + (i < k % queues.length ? 1 : 0);
          return queue.addBulk(
            Array.from({ length: share }, () => ({
              name: JOB_NAME,
              data: {},
              opts: { removeOnComplete: false },
            })),
          );
        }),
      );
  } finally {
    await Promise.all(queues.map((q) => q.close()));
    if (connection instanceof Cluster) connection.disconnect();
  }
}

async function runOnce(system: SystemName, s: Setup): Promise<ClusterRun> {
  await Promise.all(s.shards.map((sh) => sh.ctl.flushall()));
  if (system === 'machinist') {
    const store = new RedisStore({
      ...(s.cluster ? { cluster: { nodes: s.cluster.seeds } } : { url: redis.url }),
      prefix: MACHINIST_PREFIX,
    });
    if (s.partitions > 1) {
      const client = new Client({ store, jobs: [noop] });
      await client.configureQueue(s.queues[0]!, { partitions: s.partitions });
      client.close();
    }
    await store.close();
  }
  const workers = await spawnWorkers(system, 1, CONCURRENCY, undefined, 'noop', undefined, {
    cluster: s.cluster?.seeds,
    queues: s.queues,
  });
  const done = await doneKeys(system, s);
  const polls = new Map<Redis, number>();
  await Promise.all(s.shards.map((sh) => sh.ctl.config('RESETSTAT')));
  const cpu0 = await Promise.all(s.shards.map((sh) => redisCpuSeconds(sh.ctl)));
  await fill(system, s, N);
  const t0 = performance.now();
  workers.go();
  const deadline = Date.now() + Math.max(120_000, N * 5);
  for (;;) {
    const counts = await Promise.all(
      done.map(({ ctl, key }) => {
        polls.set(ctl, (polls.get(ctl) ?? 0) + 1);
        return ctl.zcard(key);
      }),
    );
    if (counts.reduce((a, b) => a + b, 0) >= N) break;
    if (Date.now() > deadline)
      throw new Error(`${s.label} (${system}): ${counts.join('+')} of ${N} jobs done at the deadline`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const secs = (performance.now() - t0) / 1000;
  const cpu1 = await Promise.all(s.shards.map((sh) => redisCpuSeconds(sh.ctl)));
  let cmds = 0;
  for (const sh of s.shards) {
    const stats = await commandStats(sh.ctl);
    // Leave out the harness's own commands: INFO, CONFIG RESETSTAT and the ZCARD polls.
    stats.delete('info');
    stats.delete('config|resetstat');
    const z = stats.get('zcard');
    if (z) z.calls = Math.max(0, z.calls - (polls.get(sh.ctl) ?? 0));
    for (const c of stats.values()) cmds += c.calls;
  }
  const ws = await workers.stop();
  return {
    workerCpuUsPerJob: ws.reduce((a, w) => a + w.cpuUs, 0) / N,
    jobsPerSec: N / secs,
    shardCpuUsPerJob: s.shards.map((_, i) => ((cpu1[i]! - cpu0[i]!) * 1e6) / N),
    cmdsPerJob: cmds / N,
  };
}

/** The rows of one run: per shard, the spread, and the Redis-bound ceiling. */
function record(system: SystemName, s: Setup, r: ClusterRun): void {
  const total = r.shardCpuUsPerJob.reduce((a, b) => a + b, 0);
  const busiest = Math.max(...r.shardCpuUsPerJob);
  const mean = total / r.shardCpuUsPerJob.length;
  const push = (metric: string, unit: string, better: 'higher' | 'lower', x: number) =>
    row('10', `${s.label}: ${metric}`, unit, better).samples[system].push(x);
  push('throughput c=100, 1 proc', 'jobs/s', 'higher', r.jobsPerSec);
  push('Redis CPU per job, all shards', 'us', 'lower', total);
  if (s.shards.length > 1) {
    r.shardCpuUsPerJob.forEach((x, i) => push(`Redis CPU per job, shard ${i + 1}`, 'us', 'lower', x));
    push('busiest shard / mean (Redis CPU)', 'ratio', 'lower', busiest / mean);
  }
  push('Redis commands per job', 'commands', 'lower', r.cmdsPerJob);
  push('worker CPU per job', 'us', 'lower', r.workerCpuUsPerJob);
  // Each shard has one core for its commands: the fleet's ceiling is where the busiest one fills it.
  push("Redis-bound ceiling, 1e6 / busiest shard's us per job", 'jobs/s', 'higher', 1e6 / busiest);
  log(
    `  ${system.padEnd(9)} ${s.label.padEnd(34)} ${fmt(r.jobsPerSec)} jobs/s  redis cpu/job ${fmt(total)} us` +
      (s.shards.length > 1
        ? ` (shards ${r.shardCpuUsPerJob.map(fmt).join(' / ')}; busiest/mean ${(busiest / mean).toFixed(2)})`
        : '') +
      `  cmds/job ${fmt(r.cmdsPerJob)}  worker cpu/job ${fmt(r.workerCpuUsPerJob)} us  ceiling ${fmt(1e6 / busiest)} jobs/s`,
  );
}

export async function clusterWorkload(): Promise<void> {
  log(
    `\n== 10. Redis Cluster: no-op throughput (${N.toLocaleString('en-US')} jobs, queue(s) filled first, 1 worker process, c=${CONCURRENCY})`,
  );
  // The clusters persist as the one node does (BENCH_AOF), so the rows compare alike.
  const one = await startBenchCluster(1, aofArgs(aofMode));
  const three = await startBenchCluster(3, aofArgs(aofMode));
  try {
    const candidates = Array.from({ length: 64 }, (_, i) => `${QUEUE}${i}`);
    const spread = await namesOnDistinctShards(three, 3, candidates);
    const parted = await partitionedOnDistinctShards(three, PARTITIONS, candidates);
    log(
      `   3 queues: ${spread.join(', ')}; partitioned queue: ${parted} (#0..#${PARTITIONS - 1}), each on its own master`,
    );
    const setups: Setup[] = [
      {
        label: 'one node',
        systems: ['machinist', 'bullmq'],
        shards: [{ ctl: redis.ctl }],
        queues: [QUEUE],
        partitions: 1,
      },
      {
        label: '1-shard cluster',
        systems: ['machinist'],
        shards: one.shards,
        cluster: one,
        queues: [QUEUE],
        partitions: 1,
      },
      {
        label: '3 shards, 3 queues',
        systems: ['machinist', 'bullmq'],
        shards: three.shards,
        cluster: three,
        queues: spread,
        partitions: 1,
      },
      {
        label: `3 shards, 1 queue of ${PARTITIONS} partitions`,
        systems: ['machinist'],
        shards: three.shards,
        cluster: three,
        queues: [parted],
        partitions: PARTITIONS,
      },
    ];
    for (const s of setups)
      for (let rep = 0; rep < REPS; rep++)
        for (const system of orderFor(rep).filter((x) => s.systems.includes(x)))
          record(system, s, await runOnce(system, s));
  } finally {
    await Promise.all([one.stop(), three.stop()]);
  }
}
