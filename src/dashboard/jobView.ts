// Everything the job page shows of one job, read in one request: the record, its audit log,
// the chart's marks (as of the whole log, or of its first `at + 1` entries when scrubbing), the
// events it accepts now, its pending timers, and Redis's clock for the countdowns.

import { JobNotFoundError, ValidationError } from '../errors.js';
import type { AuditEntry, JobRecord, Store } from '../store/types.js';
import type { ChartKit, Marks } from './chartKit.js';
import type { Definitions } from './definitions.js';
import { pendingTimers, type PendingTimer } from './pendingTimers.js';

export interface JobView {
  job: Omit<JobRecord, 'snapshot'>;
  log: AuditEntry[];
  at: number | null;
  marks: Marks | null;
  next: string[];
  timers: PendingTimer[];
  /** The context after entry `at`: known only for the last entry (the log does not hold it). */
  contextAt?: unknown;
  now: number;
  chart: { machine: string; version: number } | null;
  readOnly: boolean;
}

const FINISHED = new Set(['done', 'failed', 'cancelled']);

export async function jobView(
  store: Store,
  definitions: Definitions,
  kit: ChartKit,
  id: string,
  at: number | null,
  readOnly: boolean,
): Promise<JobView> {
  const job = await store.getJob(id);
  if (!job) throw new JobNotFoundError(id);
  const [log, now, definition] = await Promise.all([
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
  const { snapshot, ...record } = job;
  void snapshot;
  return {
    job: record,
    log,
    at,
    marks: definition ? kit.marks(definition, job, upTo, present) : null,
    next: definition && present && !FINISHED.has(job.status) ? kit.nextEvents(definition, job) : [],
    timers: pendingTimers(job),
    ...(present ? { contextAt: job.context } : {}),
    now,
    chart: definition ? { machine: job.machine, version: job.version } : null,
    readOnly,
  };
}
