#!/usr/bin/env node
// The `machinist` command: wires the commands (one file each under commands/) to the global
// options, and turns any failure, commander's own parsing errors included, into one line
// `machinist: <problem>` on stderr and the exit code describeError gives (CliError.ts lists them).

import { Command, CommanderError } from 'commander';
import { DEFAULT_REDIS_URL, parseClusterNodes, type GlobalOptions } from './connect.js';
import { CliError, EXIT } from './CliError.js';
import { describeError } from './describeError.js';
import { packageVersion } from '../runtime/packageVersion.js';
import { workerCommand } from './commands/worker.js';
import { enqueueCommand } from './commands/enqueue.js';
import { statusCommand } from './commands/status.js';
import { eventsCommand } from './commands/events.js';
import { sendCommand } from './commands/send.js';
import { chartCommand } from './commands/chart.js';
import { lsCommand } from './commands/ls.js';
import { findCommand } from './commands/find.js';
import { workersCommand } from './commands/workers.js';
import { cancelCommand } from './commands/cancel.js';
import { dlqCommand } from './commands/dlq.js';
import { statsCommand } from './commands/stats.js';
import { scheduleCommand, schedulesCommand } from './commands/schedule.js';
import { partitionsCommand } from './commands/partitions.js';
import { queueCommand } from './commands/queue.js';
import { serveCommand } from './commands/serve.js';
import { devCommand } from './commands/dev.js';
import { migrateStoreCommand } from './commands/migrateStore.js';

const program = new Command('machinist')
  .description('Durable jobs as XState machines on Redis')
  .version(packageVersion(), '-V, --version', 'print the version')
  .option('--redis <url>', 'Redis URL (env REDIS_URL)', process.env.REDIS_URL || DEFAULT_REDIS_URL)
  .option(
    '--redis-cluster <nodes>',
    'a Redis Cluster instead: some of its nodes, host:port,... (env REDIS_CLUSTER)',
    process.env.REDIS_CLUSTER || undefined,
  )
  .option(
    '--prefix <prefix>',
    'key prefix of the deployment (env MACHINIST_PREFIX)',
    process.env.MACHINIST_PREFIX || 'machinist',
  )
  .option(
    '--url <url>',
    "a running server's HTTP API, as `machinist dev` (npm start) prints it (env MACHINIST_URL): the job commands go through it instead of Redis",
  )
  .option('--token <token>', 'bearer token for --url (env MACHINIST_TOKEN)');

const globals = (): GlobalOptions => {
  const opts = program.opts<{
    redis: string;
    redisCluster?: string;
    prefix: string;
    url?: string;
    token?: string;
  }>();
  const redisFlag = program.getOptionValueSource('redis') === 'cli';
  const clusterFlag = program.getOptionValueSource('redisCluster') === 'cli';
  if (redisFlag && opts.url !== undefined) throw new CliError('give --url or --redis, not both', EXIT.usage);
  if (clusterFlag && opts.url !== undefined)
    throw new CliError('give --url or --redis-cluster, not both', EXIT.usage);
  if (clusterFlag && redisFlag) throw new CliError('give --redis or --redis-cluster, not both', EXIT.usage);
  // A flag beats the other's environment variable: --redis over REDIS_CLUSTER.
  const cluster = redisFlag ? undefined : opts.redisCluster;
  return {
    redis: opts.redis,
    redisCluster: cluster === undefined ? undefined : parseClusterNodes(cluster),
    prefix: opts.prefix,
    // A flag beats the other's environment variable: --redis over MACHINIST_URL, --url over REDIS_URL.
    url: opts.url ?? (redisFlag || clusterFlag ? undefined : process.env.MACHINIST_URL || undefined),
    token: opts.token ?? (process.env.MACHINIST_TOKEN || undefined),
    urlFlag: opts.url !== undefined,
    // Where the value came from, not what it is: `--redis redis://127.0.0.1:6379` is a choice too.
    redisChosen: redisFlag || Boolean(process.env.REDIS_URL) || cluster !== undefined,
  };
};
for (const make of [
  workerCommand,
  enqueueCommand,
  statusCommand,
  eventsCommand,
  sendCommand,
  chartCommand,
  lsCommand,
  findCommand,
  cancelCommand,
  dlqCommand,
  statsCommand,
  workersCommand,
  partitionsCommand,
  schedulesCommand,
  scheduleCommand,
  queueCommand,
  serveCommand,
  devCommand,
  migrateStoreCommand,
]) {
  program.addCommand(make(globals));
}

// Commander prints its parsing errors itself and exits; every command (subcommands do not
// inherit this from addCommand) throws them to the one handler below instead.
const quiet = (cmd: Command) => {
  cmd.exitOverride().configureOutput({ outputError: () => {} });
  cmd.commands.forEach(quiet);
};
quiet(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // --help and --version end with a CommanderError too: their output is the answer.
  if (err instanceof CommanderError && (err.exitCode === 0 || err.code === 'commander.help')) {
    process.exitCode = err.exitCode;
  } else {
    const { message, exitCode } = describeError(err);
    console.error(`machinist: ${message}`);
    if (process.env.MACHINIST_DEBUG && err instanceof Error && err.stack) console.error(err.stack);
    process.exitCode = exitCode;
  }
}
