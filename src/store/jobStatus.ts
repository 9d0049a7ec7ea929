// A job's status as the store keeps it, and which of them are final.

export type JobStatus = 'queued' | 'loading' | 'working' | 'waiting' | 'done' | 'failed' | 'cancelled';
export const FINISHED: ReadonlySet<string> = new Set(['done', 'failed', 'cancelled']);
