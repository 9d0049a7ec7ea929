// What `machinist status <id>` does (its options: commands/status.ts): one job's status, state,
// attempts, last error, progress and times; its active states as a tree, pending timers with
// countdowns, the events it accepts and its last audit entries. `--watch` redraws it as it changes
// until the job finishes.

import { nextEvents } from '../../chart/nextEvents.js';
import { JobNotFoundError } from '../../errors.js';
import { FINISHED } from '../../store/types.js';
import type { CliBackend } from '../backend/CliBackend.js';
import { EXIT } from '../CliError.js';
import { withBackend, type GlobalOptions } from '../connect.js';
import { json } from '../format.js';
import { jobLines } from '../jobLines.js';
import { statusSections } from '../statusSections.js';
import { pollUntil } from '../pollUntil.js';

export interface StatusOptions {
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

export async function runStatus(globals: GlobalOptions, id: string, opts: StatusOptions): Promise<void> {
  await withBackend(globals, async (backend) => {
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
      const key = opts.json || !tty ? `${job.updatedAt}|${job.status}|${JSON.stringify(job.state)}` : shown;
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
}
