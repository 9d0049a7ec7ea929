// `machinist migrate-store`: takes a Redis store's data format to the version this Machinist
// reads, one numbered migration at a time (docs/data-format.md). Run with the workers stopped
// when a step is marked breaking; `--dry-run` checks and reports, and writes nothing.
// With `--to <url>` or `--to-cluster <host:port,...>` it then copies the deployment to another
// Redis, a cluster among them (src/store/redis/copyStore.ts; docs/production.md).

import { Command } from 'commander';
import { Cluster, Redis } from 'ioredis';
import { copyStore, type AnyRedis } from '../../store/redis/copyStore.js';
import { migrateStore } from '../../store/redis/formatOps.js';
import { CliError } from '../CliError.js';
import { openStore, safeUrl, type GlobalOptions } from '../connect.js';
import { json } from '../format.js';

export function migrateStoreCommand(globals: () => GlobalOptions): Command {
  return new Command('migrate-store')
    .description("bring the store's data format up to this version (docs/data-format.md)")
    .option('--dry-run', 'check and print the steps; write nothing')
    .option('--json', 'print the report as JSON')
    .option('--to <url>', 'then copy the deployment to the Redis at this URL (an empty one)')
    .option(
      '--to-cluster <nodes>',
      'then copy the deployment to this Redis Cluster (host:port,... of its nodes)',
    )
    .action(async (opts: MigrateOptions) => {
      const g = globals();
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
        if (opts.json) return void console.log(json(copy ? { ...report, copy } : report));
        const where = `Redis at ${safeUrl(g.redis)}, prefix '${store.prefix}'`;
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
      } finally {
        target?.conn.disconnect();
        await store.close();
      }
    });
}

interface MigrateOptions {
  dryRun?: boolean;
  json?: boolean;
  to?: string;
  toCluster?: string;
}

/** host:port,host:port,... as the nodes a Cluster starts from; a clear error for anything else. */
export function parseClusterNodes(text: string): { host: string; port: number }[] {
  return text.split(',').map((part) => {
    const m = /^\s*\[?([^\]\s]+?)\]?:(\d{1,5})\s*$/.exec(part);
    const port = m ? Number(m[2]) : NaN;
    if (!m || port < 1 || port > 65535)
      throw new CliError(`invalid cluster node '${part.trim()}': expected host:port (e.g. 127.0.0.1:7000)`);
    return { host: m[1]!, port };
  });
}

/** The copy's target, when one is asked for (never both). */
function openTarget(opts: MigrateOptions): { conn: AnyRedis; name: string } | undefined {
  if (opts.to && opts.toCluster) throw new CliError('give --to or --to-cluster, not both');
  const quiet = <T extends AnyRedis>(conn: T): T => (conn.on('error', () => {}), conn);
  if (opts.to)
    return { conn: quiet(new Redis(opts.to, { maxRetriesPerRequest: 3 })), name: safeUrl(opts.to) };
  if (opts.toCluster) {
    const nodes = parseClusterNodes(opts.toCluster);
    return {
      conn: quiet(new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: 3 } })),
      name: `the cluster at ${nodes.map((n) => `${n.host}:${n.port}`).join(',')}`,
    };
  }
  return undefined;
}
