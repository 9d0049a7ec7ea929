// pauseOnFailure (Temporal's): a schedule whose tick's job ended failed pauses itself, with a note
// naming the job and its error. The one place that decides it, for both ways a failure is seen:
// the schedule loop following the job to its end (ScheduleWatch.ts, at once), and a pass of the
// loop finding its last job failed (the net when no supervisor followed it, e.g. one was killed).

import type { StoredError } from '../../errors.js';
import { noteAction, type ScheduleRecord } from './scheduleRecord.js';

/** The most of an error's message a note carries. */
const NOTE_ERROR_CHARS = 500;

/**
 * Pauses `r` for job `jobId`'s failure when its spec asks for it and that job's failure has not
 * paused it already (so a resume is not undone by the same job). True when `r` changed.
 */
export function pauseForFailure(
  r: ScheduleRecord,
  jobId: string,
  error: StoredError | null,
  now: number,
): boolean {
  if (!r.spec.pauseOnFailure || r.pausedOnFailureOf === jobId) return false;
  const why = (error ? `${error.code ?? error.name}: ${error.message}` : 'unknown error').slice(
    0,
    NOTE_ERROR_CHARS,
  );
  r.paused = true;
  r.note = `paused on failure: job ${jobId} failed (${why})`;
  r.pausedOnFailureOf = jobId;
  noteAction(r, { at: now, what: 'paused', jobId, detail: why });
  return true;
}
