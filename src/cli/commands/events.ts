// `machinist events <id>`: a job's audit log, oldest first; `--follow` prints new entries as
// they are written until the job finishes (Ctrl-C stops).

import { Command } from 'commander';
import { FINISHED } from '../../store/types.js';
import { withBackend, type GlobalOptions } from '../connect.js';
import { json } from '../format.js';
import { auditLine } from '../statusSections.js';
import { integer } from '../parseOptions.js';
import { pollUntil } from '../pollUntil.js';

interface EventsOptions {
  queue?: string;
  json?: boolean;
  follow?: boolean;
  intervalMs: number;
}

export function eventsCommand(globals: () => GlobalOptions): Command {
  return new Command('events')
    .description("print a job's audit log (every transition, oldest first)")
    .argument('<id>', 'job id')
    .option('-q, --queue <name>', "the job's queue (default: looked up across queues)")
    .option('--json', 'print the entries as JSON (with --follow: one JSON object per line)')
    .option('-f, --follow', 'keep printing new entries until the job finishes (Ctrl-C stops)')
    .option('--interval-ms <ms>', 'with --follow: how often to look', integer(50), 500)
    .action(async (id: string, opts: EventsOptions) => {
      await withBackend(globals(), async (backend) => {
        if (!opts.follow) {
          const log = await backend.events(id, opts.queue);
          if (opts.json) return void console.log(json(log));
          for (const e of log) console.log(auditLine(e));
          return;
        }
        // The log keeps its last 1,000 entries: new ones are those after the last printed.
        let printed: { at: number; type: string } | null = null;
        let seen = 0;
        await pollUntil(opts.intervalMs, async () => {
          // The status first: a finished job's log read after it holds its last entry.
          const job = await backend.get(id, opts.queue);
          const log = await backend.events(id, job?.queue ?? opts.queue);
          let from = Math.min(seen, log.length);
          if (printed && JSON.stringify(log[from - 1]) !== JSON.stringify(printed)) {
            // Older entries were dropped: find the last printed one again.
            const i = log.findIndex((e) => JSON.stringify(e) === JSON.stringify(printed));
            from = i + 1;
          }
          for (const e of log.slice(from)) console.log(opts.json ? JSON.stringify(e) : auditLine(e));
          seen = log.length;
          printed = log[log.length - 1] ?? null;
          return !job || FINISHED.has(job.status);
        });
      });
    });
}
