// A job record as the CLI prints it (`status`, `enqueue --wait`): one field per line.

import type { JobRecord } from '../store/types.js';
import { errorLine, time, value } from './format.js';

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
