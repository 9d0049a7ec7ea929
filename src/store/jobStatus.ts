// A job's status as the store keeps it, and which of them are final (checked equal to the
// lifecycle machine's final states where the table of moves is built: lifecycleTable.ts).

export const JOB_STATUSES = [
  'queued',
  'loading',
  'working',
  'waiting',
  'done',
  'failed',
  'cancelled',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINISHED: ReadonlySet<string> = new Set(['done', 'failed', 'cancelled']);
