#!/usr/bin/env node
// The `machinist` command: wires the commands (one file each under commands/) to the global
// options, and turns any failure into one line on stderr and a non-zero exit.

import { Command } from 'commander';
import { MachinistError } from '../errors.js';
import { CliError } from './CliError.js';
import { DEFAULT_REDIS_URL, type GlobalOptions } from './connect.js';
import { workerCommand } from './commands/worker.js';
import { enqueueCommand } from './commands/enqueue.js';
import { statusCommand } from './commands/status.js';
import { eventsCommand } from './commands/events.js';
import { lsCommand } from './commands/ls.js';
import { cancelCommand } from './commands/cancel.js';
import { dlqCommand } from './commands/dlq.js';
import { statsCommand } from './commands/stats.js';
import { serveCommand } from './commands/serve.js';

const program = new Command('machinist')
  .description('Durable jobs as XState machines on Redis')
  .option('--redis <url>', 'Redis URL (env REDIS_URL)', process.env.REDIS_URL || DEFAULT_REDIS_URL)
  .option(
    '--prefix <prefix>',
    'key prefix of the deployment (env MACHINIST_PREFIX)',
    process.env.MACHINIST_PREFIX || 'machinist',
  );

const globals = (): GlobalOptions => program.opts<GlobalOptions>();
for (const make of [
  workerCommand,
  enqueueCommand,
  statusCommand,
  eventsCommand,
  lsCommand,
  cancelCommand,
  dlqCommand,
  statsCommand,
  serveCommand,
]) {
  program.addCommand(make(globals));
}

function describe(err: unknown): string {
  if (err instanceof CliError) return err.message;
  if (err instanceof MachinistError) return `${err.message} [${err.code}]`;
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  console.error(`machinist: ${describe(err)}`);
  if (process.env.MACHINIST_DEBUG && err instanceof Error && err.stack) console.error(err.stack);
  process.exitCode = err instanceof CliError ? err.exitCode : 1;
}
