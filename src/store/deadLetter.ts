// The failed jobs a queue keeps apart: dead letters (failed past their attempts) and broken
// jobs (could not run at all), as the DeadLetters role (roles/DeadLetters.ts) lists them.

import type { StoredError } from '../errors.js';
import type { JobRecord } from './jobRecord.js';

export interface DeadLetter {
  id: string;
  queue: string;
  machine: string;
  input: unknown;
  error: StoredError | null;
  attempts: number;
  failedAt: number;
}

/** A dead-lettered job's record as the dead-letter list shows it (both stores). */
export function deadLetterOf(r: JobRecord, queue: string): DeadLetter {
  return {
    id: r.id,
    queue,
    machine: r.machine,
    input: r.input,
    error: r.error,
    attempts: r.attempts,
    failedAt: r.finishedAt ?? 0,
  };
}

export interface BrokenEntry {
  id: string;
  queue: string;
  reason: string;
  at: number;
  /** For an ingress entry that could not be made a job: its text (the first 64 KiB). */
  raw?: string;
}
