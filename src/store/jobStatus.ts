// A job's status as the store keeps it, and which of them are final (checked equal to the
// lifecycle machine's final states where the table of moves is built: lifecycleTable.ts).

export type JobStatus = 'queued' | 'loading' | 'working' | 'waiting' | 'done' | 'failed' | 'cancelled';
export const FINISHED: ReadonlySet<string> = new Set(['done', 'failed', 'cancelled']);
