// `machinist status <id>`: one job's status, state, attempts, last error, progress and times.

import { Command } from 'commander';
import type { JobRecord } from '../../store/types.js';
import { withClient, type GlobalOptions } from '../connect.js';
import { CliError } from '../CliError.js';
import { errorLine, json, time, value } from '../format.js';

/** The human form of a job record, one field per line. */
export function printJob(job: JobRecord): void {
  const rows: [string, string][] = [
    ['id', job.id],
    ['queue', job.queue],
    ['machine', `${job.machine}@${job.version}`],
    ['status', job.status + (job.cancelRequested && job.status !== 'cancelled' ? ' (cancel requested)' : '')],
    ['state', value(job.state)],
    ['priority', job.priority],
    [
      'attempts',
      `${job.attempts} of ${job.maxAttempts}` +
        (job.leaseRequeues ? ` (${job.leaseRequeues} lease requeues)` : ''),
    ],
    ['progress', value(job.progress)],
    ['output', value(job.output, 500)],
    ['error', errorLine(job.error)],
    ['created', time(job.createdAt)],
    ['updated', time(job.updatedAt)],
    ['run at', time(job.runAt)],
    ['finished', time(job.finishedAt)],
  ];
  if (job.parentId) rows.splice(3, 0, ['parent', job.parentId]);
  for (const [k, v] of rows) console.log(`${k.padEnd(9)} ${v}`);
}

export function statusCommand(globals: () => GlobalOptions): Command {
  return new Command('status')
    .description("show a job's status, state, attempts, last error, progress and times")
    .argument('<id>', 'job id')
    .option('-q, --queue <name>', "the job's queue (default: looked up across queues)")
    .option('--json', 'print the whole job record as JSON')
    .action(async (id: string, opts: { queue?: string; json?: boolean }) => {
      await withClient(globals(), async (client) => {
        const job = await client.get(id, { queue: opts.queue });
        if (!job) throw new CliError(`job ${id} not found${opts.queue ? ` in queue '${opts.queue}'` : ''}`);
        if (opts.json) console.log(json(job));
        else printJob(job);
      });
    });
}
