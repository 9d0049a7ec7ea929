// `machinist enqueue <machine> [json]`: adds a job and prints its id; with --wait, also waits
// for its result (exit 0 when done, 1 when it failed, was cancelled or did not finish in time).

import { Command } from 'commander';
import type { EnqueueOptions } from '../../client/validateEnqueue.js';
import { withClient, type GlobalOptions } from '../connect.js';
import { integer, jsonInput, priority } from '../parseOptions.js';
import { printJob } from './status.js';

interface EnqueueCliOptions extends EnqueueOptions {
  wait?: number;
  json?: boolean;
}

export function enqueueCommand(globals: () => GlobalOptions): Command {
  return new Command('enqueue')
    .description('enqueue a job of a machine a worker has registered; prints its id')
    .argument('<machine>', 'machine name')
    .argument('[json]', 'the job input, as JSON', jsonInput)
    .option('-q, --queue <name>', 'queue', 'default')
    .option('-p, --priority <level>', 'critical | high | normal | low', priority)
    .option('--delay-ms <ms>', 'run no earlier than this many ms from now', integer(0))
    .option('--idempotency-key <key>', 'a second enqueue with the same key returns the first job')
    .option('--max-attempts <n>', 'runs in all, first included', integer(1))
    .option('--timeout-ms <ms>', 'per-attempt time limit for this job', integer(1))
    .option('--wait <ms>', 'wait up to this long for the result and print it', integer(1))
    .option('--json', 'with --wait: print the job record as JSON')
    .action(async (machine: string, input: unknown, opts: EnqueueCliOptions) => {
      await withClient(globals(), async (client) => {
        const options: EnqueueOptions = {
          queue: opts.queue,
          priority: opts.priority,
          delayMs: opts.delayMs,
          idempotencyKey: opts.idempotencyKey,
          maxAttempts: opts.maxAttempts,
          timeoutMs: opts.timeoutMs,
        };
        const id = await client.enqueue(machine, input, options);
        if (opts.wait === undefined) return void console.log(id);
        if (!opts.json) console.log(id);
        const job = await client.waitForResult(id, { timeoutMs: opts.wait, queue: opts.queue });
        if (opts.json) console.log(JSON.stringify(job, null, 2));
        else printJob(job);
        if (job.status !== 'done') process.exitCode = 1;
      });
    });
}
