// `machinist status <id>`: one job's status, state, attempts, last error, progress and times;
// its active states as a tree, pending timers with countdowns, the events it accepts and its
// last audit entries. `--watch` redraws it as it changes until the job finishes.

import { Command } from 'commander';
import { nextEvents } from '../../chart/nextEvents.js';
import { JobNotFoundError } from '../../errors.js';
import { FINISHED, type JobRecord } from '../../store/types.js';
import type { CliBackend } from '../backend/CliBackend.js';
import { EXIT } from '../CliError.js';
import { withBackend, type GlobalOptions } from '../connect.js';
import { errorLine, json, time, value } from '../format.js';
import { statusSections } from '../statusSections.js';
import { integer } from '../parseOptions.js';
import { pollUntil } from '../pollUntil.js';

/** The human form of a job record, one field per line. */
export function jobLines(job: JobRecord): string[] {
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
  if (job.children) rows.push(['children', `${job.children.finished} of ${job.children.total} finished`]);
  return rows.map(([k, v]) => `${k.padEnd(9)} ${v}`);
}

export function printJob(job: JobRecord): void {
  console.log(jobLines(job).join('\n'));
}

interface StatusOptions {
  queue?: string;
  json?: boolean;
  watch?: boolean;
  intervalMs: number;
  events: number;
}

/** The record and everything status prints with it; throws JOB_NOT_FOUND. */
async function view(backend: CliBackend, id: string, opts: StatusOptions) {
  const job = await backend.get(id, opts.queue);
  if (!job) throw new JobNotFoundError(id, opts.queue);
  const [log, now] = await Promise.all([backend.events(id, job.queue), backend.now()]);
  let accepts: string[] | null = null;
  if (!FINISHED.has(job.status)) {
    try {
      const graph = await backend.machineChart(job.machine, job.version);
      if (graph.kind === 'pipeline') accepts = nextEvents(graph, job.state);
    } catch {
      // No chart for this machine here: the section is left out, the rest still shows.
    }
  }
  const text = [
    ...jobLines(job),
    ...statusSections(job, { log, nextEvents: accepts, now, lastEvents: opts.events }),
  ].join('\n');
  return { job, text };
}

export function statusCommand(globals: () => GlobalOptions): Command {
  return new Command('status')
    .description("show a job's status, active states, pending timers, accepted events and last events")
    .argument('<id>', 'job id')
    .option('-q, --queue <name>', "the job's queue (default: looked up across queues)")
    .option('--json', 'print the whole job record as JSON')
    .option('-w, --watch', 'redraw as the job changes, until it finishes (Ctrl-C stops)')
    .option('--interval-ms <ms>', 'with --watch: how often to look', integer(50), 500)
    .option('-n, --events <n>', 'how many of the last audit entries to show', integer(0), 5)
    .action(async (id: string, opts: StatusOptions) => {
      await withBackend(globals(), async (backend) => {
        if (opts.json && !opts.watch) {
          const job = await backend.get(id, opts.queue);
          if (!job) throw new JobNotFoundError(id, opts.queue);
          return void console.log(json(job));
        }
        if (!opts.watch) return void console.log((await view(backend, id, opts)).text);
        const tty = process.stdout.isTTY;
        let last = '';
        await pollUntil(opts.intervalMs, async () => {
          const { job, text } = await view(backend, id, opts);
          const shown = opts.json ? json(job) : text;
          // Countdowns change every second: on a terminal the view is redrawn in place;
          // piped, a new view is printed only when the job itself changed.
          const key =
            opts.json || !tty ? `${job.updatedAt}|${job.status}|${JSON.stringify(job.state)}` : shown;
          if (key !== last) {
            if (tty) process.stdout.write('\x1b[H\x1b[2J');
            else if (last !== '') process.stdout.write('\n');
            last = key;
            console.log(shown);
          }
          if (FINISHED.has(job.status)) {
            if (job.status !== 'done') process.exitCode = EXIT.failed;
            return true;
          }
          return false;
        });
      });
    });
}
