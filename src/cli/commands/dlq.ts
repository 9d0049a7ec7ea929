// `machinist dlq list|retry|purge`: dead letters (jobs that ran out of attempts) and broken jobs
// (records a supervisor could not run, e.g. UNKNOWN_MACHINE); `retry` puts either back in line.

import { Command } from 'commander';
import { withBackend, type GlobalOptions } from '../connect.js';
import { integer } from '../parseOptions.js';
import { errorLine, json, table, time, value } from '../format.js';

export function dlqCommand(globals: () => GlobalOptions): Command {
  const dlq = new Command('dlq').description('dead letters and broken jobs');
  dlq
    .command('list')
    .description('list dead letters and broken jobs of a queue, newest first')
    .option('-q, --queue <name>', 'queue', 'default')
    .option('-n, --limit <n>', 'at most this many of each', integer(1), 100)
    .option('--json', 'print { dead, broken } as JSON')
    .action(async (opts: { queue: string; limit: number; json?: boolean }) => {
      await withBackend(globals(), async (backend) => {
        const [dead, broken] = await Promise.all([
          backend.deadLetters(opts.queue, opts.limit),
          backend.broken(opts.queue, opts.limit),
        ]);
        if (opts.json) return void console.log(json({ dead, broken }));
        console.log(`dead letters in '${opts.queue}': ${dead.length}`);
        if (dead.length) {
          const rows = dead.map((d) => [
            d.id,
            d.machine,
            String(d.attempts),
            time(d.failedAt),
            value(errorLine(d.error), 80),
          ]);
          console.log(table(['ID', 'MACHINE', 'ATTEMPTS', 'FAILED', 'ERROR'], rows));
        }
        console.log(`broken jobs in '${opts.queue}': ${broken.length}`);
        if (broken.length)
          console.log(
            table(
              ['ID', 'AT', 'REASON'],
              broken.map((b) => [b.id, time(b.at), value(b.reason, 100)]),
            ),
          );
      });
    });
  dlq
    .command('retry')
    .description('put a dead-lettered or broken job back in line with fresh attempts')
    .argument('<id>', 'job id')
    .option('-q, --queue <name>', "the job's queue (default: looked up across queues)")
    .action(async (id: string, opts: { queue?: string }) => {
      await withBackend(globals(), async (backend) => {
        await backend.retryDeadLetter(id, opts.queue);
        console.log(`requeued ${id}`);
      });
    });
  dlq
    .command('purge')
    .description("empty a queue's dead letters (their records then expire like any finished job)")
    .option('-q, --queue <name>', 'queue', 'default')
    .action(async (opts: { queue: string }) => {
      await withBackend(globals(), async (backend) => {
        const n = await backend.purgeDeadLetters(opts.queue);
        console.log(`purged ${n} dead letter(s) from '${opts.queue}'`);
      });
    });
  return dlq;
}
