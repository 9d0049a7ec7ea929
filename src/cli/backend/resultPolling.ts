// How the CLI waits for jobs through the HTTP API (HttpBackend.ts): by polling each job's
// record, as the API's ?wait holds only a submit. Apart from the routes because the waiting has
// its own rules: a job is looked at every POLL_MS until it is finished, gone (JobNotFoundError) or
// past its timeout (TimeoutError); many jobs are polled in rounds, one request at a time, so a
// thousand open jobs do not make a thousand requests every POLL_MS.

import { JobNotFoundError, TimeoutError } from '../../errors.js';
import { FINISHED, type JobRecord } from '../../store/types.js';

/** How often waitForResult looks at the job (the API's ?wait is for a submit only). */
const POLL_MS = 200;

/** A job's record by the API (null: no such job). */
type GetJob = (id: string, queue?: string) => Promise<JobRecord | null>;

/** `p`, marked handled: its caller awaits it after other awaits, and gets its rejection then. */
export function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/** Waits until the next look at a job: POLL_MS, or what is left until `end`. */
function nextPoll(end: number): Promise<unknown> {
  return new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, end - Date.now()))));
}

/** The job's record once it is finished. */
export async function pollResult(
  get: GetJob,
  id: string,
  options: { timeoutMs: number; queue?: string },
): Promise<JobRecord> {
  const end = Date.now() + options.timeoutMs;
  for (;;) {
    const job = await get(id, options.queue);
    if (!job) throw new JobNotFoundError(id, options.queue);
    if (FINISHED.has(job.status)) return job;
    if (Date.now() >= end) throw TimeoutError.forJob(id, job.queue, options.timeoutMs);
    await nextPoll(end);
  }
}

/**
 * pollResult for many jobs, polled in rounds (each job once a round, one request at a
 * time), so a thousand open jobs do not make a thousand requests every POLL_MS.
 */
export function pollMany(
  get: GetJob,
  jobs: readonly { id: string; queue?: string }[],
  timeoutMs: number,
): Map<string, Promise<JobRecord>> {
  const end = Date.now() + timeoutMs;
  const settle = new Map<string, { resolve(job: JobRecord): void; reject(err: unknown): void }>();
  const results = new Map<string, Promise<JobRecord>>();
  for (const { id } of jobs)
    if (!results.has(id))
      results.set(
        id,
        handled(new Promise<JobRecord>((resolve, reject) => settle.set(id, { resolve, reject }))),
      );
  const poll = async () => {
    let open = [...new Map(jobs.map((j) => [j.id, j])).values()];
    while (open.length > 0) {
      const next: typeof open = [];
      for (const j of open) {
        const job = await get(j.id, j.queue);
        if (!job) settle.get(j.id)!.reject(new JobNotFoundError(j.id, j.queue));
        else if (FINISHED.has(job.status)) settle.get(j.id)!.resolve(job);
        else if (Date.now() >= end) settle.get(j.id)!.reject(TimeoutError.forJob(j.id, job.queue, timeoutMs));
        else next.push(j);
      }
      open = next;
      if (open.length > 0) await nextPoll(end);
    }
  };
  poll().catch((err: unknown) => {
    for (const s of settle.values()) s.reject(err);
  });
  return results;
}
