// What `machinist migrate-store` does (its options: commands/migrateStore.ts): takes a Redis
// store's data format to the version this Machinist reads, one numbered migration at a time
// (docs/data-format.md). Run with the workers stopped when a step is marked breaking; `--dry-run`
// checks and reports, and writes nothing. With `--to <url>` or `--to-cluster <host:port,...>` it
// then copies the deployment to another Redis, a cluster among them (src/store/redis/copyStore.ts;
// docs/production.md). With `--partition <queue> --partitions N` it then partitions a queue that
// holds jobs, online: new work goes to the partitions at once, the jobs it held drain from its own
// name (src/store/partitionPopulated.ts; docs/partitions.md). Run again, it reports what is left.

import { Cluster, Redis } from 'ioredis';
import { copyStore, type AnyRedis } from '../../store/redis/copyStore.js';
import { migrateStore } from '../../store/redis/formatOps.js';
import { partitionPopulated, type PartitionReport } from '../../store/partitionPopulated.js';
import { CliError } from '../CliError.js';
import { openStore, parseClusterNodes, redisLabel, safeUrl, type GlobalOptions } from '../connect.js';
import { json } from '../format.js';

export interface MigrateOptions {
  dryRun?: boolean;
  json?: boolean;
  to?: string;
  toCluster?: string;
  partition?: string;
  partitions?: number;
}

export async function runMigrateStore(g: GlobalOptions, opts: MigrateOptions): Promise<void> {
  if ((opts.partition === undefined) !== (opts.partitions === undefined))
    throw new CliError('give --partition <queue> and --partitions <n> together');
  if (opts.partition !== undefined && (opts.to || opts.toCluster))
    throw new CliError('partition a queue, or copy the deployment: one at a time');
  // The target's nodes are checked before anything is opened.
  const target = openTarget(opts);
  const store = await openStore(g).catch((err: unknown) => {
    target?.conn.disconnect();
    throw err;
  });
  try {
    const report = await migrateStore(store.redis, store.prefix, opts.dryRun === true);
    const copy =
      target &&
      (await copyStore(store.redis, target.conn, store.prefix, {
        dryRun: report.dryRun,
        formatPending: report.dryRun && (report.from === null || report.steps.length > 0),
      }));
    const partition =
      opts.partition !== undefined
        ? await partitionPopulated(store, opts.partition, opts.partitions!, { dryRun: report.dryRun })
        : undefined;
    if (opts.json)
      return void console.log(
        json({ ...report, ...(copy ? { copy } : {}), ...(partition ? { partition } : {}) }),
      );
    const where = `Redis at ${redisLabel(g)}, prefix '${store.prefix}'`;
    const would = report.dryRun ? 'would be' : 'is';
    if (report.from === null) console.log(`${where}: empty; ${would} stamped with format ${report.to}`);
    else if (report.steps.length === 0)
      console.log(`${where}: format ${report.from}, current; nothing to do`);
    else {
      console.log(
        `${where}: format ${report.from} -> ${report.to}${report.dryRun ? ' (dry run: nothing written)' : ''}`,
      );
      for (const s of report.steps)
        console.log(`  ${s.to}: ${s.description}${s.breaking ? ' [breaking]' : ''}\n     ${s.note}`);
    }
    if (copy && target) {
      const jobs = copy.queues.map((q) => `${q.queue} ${q.jobs}`).join(', ') || 'no queues';
      const did = copy.dryRun ? 'would copy' : 'copied';
      console.log(`${did} ${copy.keys} key(s) to ${target.name} (jobs per queue: ${jobs})`);
    }
    if (partition) printPartition(partition);
  } finally {
    target?.conn.disconnect();
    await store.close();
  }
}

function printPartition(p: PartitionReport): void {
  const q = `queue '${p.queue}'`;
  if (p.dryRun) console.log(`${q}: would be partitioned ${p.from} -> ${p.to} (dry run: nothing written)`);
  else if (p.switched)
    console.log(`${q}: partitioned ${p.from} -> ${p.to}; idempotency keys handed over: ${p.idempotencyKeys}`);
  else console.log(`${q}: ${p.to} partitions already`);
  const l = p.left;
  console.log(
    `  its own name still holds: queued ${l.queued}, delayed ${l.delayed}, active ${l.active}, waiting ${l.waiting}` +
      ` (finished ${l.done + l.failed + l.cancelled}, dead ${l.dead}, broken ${l.broken})`,
  );
  console.log(
    p.drained
      ? '  drained: no unfinished job is left there'
      : '  draining: supervisors serving the queue run those jobs there; run this again to follow',
  );
  if (p.switched)
    console.log(
      `  restart the supervisors serving '${p.queue}', one at a time: one started before serves its own name only`,
    );
}

/** The copy's target, when one is asked for (never both). */
function openTarget(opts: MigrateOptions): { conn: AnyRedis; name: string } | undefined {
  if (opts.to && opts.toCluster) throw new CliError('give --to or --to-cluster, not both');
  const quiet = <T extends AnyRedis>(conn: T): T => (conn.on('error', () => {}), conn);
  if (opts.to)
    return { conn: quiet(new Redis(opts.to, { maxRetriesPerRequest: 3 })), name: safeUrl(opts.to) };
  if (opts.toCluster) {
    const nodes = parseClusterNodes(opts.toCluster, '--to-cluster');
    return {
      conn: quiet(new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: 3 } })),
      name: `the cluster at ${nodes.map((n) => `${n.host}:${n.port}`).join(',')}`,
    };
  }
  return undefined;
}
