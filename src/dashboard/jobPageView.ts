// Everything the job page shows of one job, read in one request: the record, its audit log,
// the chart's marks (as of the whole log, or of its first `at + 1` entries when scrubbing), the
// events it accepts now, its pending timers, and Redis's clock for the countdowns.

import type { Client } from '../client/Client.js';
import { jobView as recordView } from '../client/recordView.js';
import { JobNotFoundError, ValidationError } from '../errors.js';
import type { AuditEntry, JobRecord, Store } from '../store/types.js';
import { acceptedEvents, marksAt, type ChartMarks } from './chartKit.js';
import { contextAt } from './contextAt.js';
import type { Definitions } from './definitions.js';
import { invokedMachines, type InvokedMachine } from './invokedMachines.js';
import { pendingTimers, type PendingTimer } from './pendingTimers.js';

export interface JobPageView {
  job: Omit<JobRecord, 'snapshot'>;
  log: AuditEntry[];
  at: number | null;
  marks: ChartMarks | null;
  next: string[];
  timers: PendingTimer[];
  /**
   * The context after entry `at` (contextAt.ts: as the job entered the state it was in then);
   * absent when the log does not hold it.
   */
  contextAt?: unknown;
  now: number;
  chart: { machine: string; version: number } | null;
  /** The XState machines its states invoke, each its own chart, lit while its child runs. */
  invoked: InvokedMachine[];
  readOnly: boolean;
}

const FINISHED = new Set(['done', 'failed', 'cancelled']);

export async function jobPageView(
  store: Store,
  client: Client<never>,
  definitions: Definitions,
  id: string,
  at: number | null,
  readOnly: boolean,
  /** Show the error's stack (the API's rule for this caller: http/errorStacks.ts). */
  stacks = true,
): Promise<JobPageView> {
  // Through the Client: its record carries the children's summary.
  const job = await client.get(id);
  if (!job) throw new JobNotFoundError(id);
  const [log, now, source] = await Promise.all([
    store.getLog(id, job.queue),
    store.now(),
    definitions.get(job.machine, job.version),
  ]);
  if (at !== null && (at < 0 || at >= log.length)) {
    throw new ValidationError(`at: entry ${at} is not in the job's audit log (0 to ${log.length - 1})`, {
      field: 'at',
      jobId: id,
    });
  }
  const upTo = at === null ? log : log.slice(0, at + 1);
  const present = at === null || at === log.length - 1;
  // The record as the API shows it: values in the codec's JSON form (as the log holds the
  // context), stacks only for a caller allowed to see them.
  const record = recordView(job, stacks);
  const ctx = present ? record.context : contextAt(log, at, record.context);
  return {
    job: record,
    log,
    at,
    marks: source ? marksAt(source.graph, job, upTo, present) : null,
    next: source && present && !FINISHED.has(job.status) ? acceptedEvents(source, job) : [],
    timers: pendingTimers(job),
    ...(ctx !== undefined ? { contextAt: ctx } : {}),
    now,
    chart: source ? { machine: job.machine, version: job.version } : null,
    invoked: source ? invokedMachines(source.graph, job, !FINISHED.has(job.status)) : [],
    readOnly,
  };
}
