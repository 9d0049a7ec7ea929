// The CLI through the HTTP API of a running `machinist serve` or `dev` (`--url`, MACHINIST_URL):
// what `npm start` runs on its embedded store can only be reached this way. Each call is one
// request (Node's fetch) to a route of docs/http.md; the server's error body becomes the same
// typed error the store path throws (JOB_NOT_FOUND is `no job <id>`, UNKNOWN_MACHINE exit 3),
// and what only HTTP has (a refused token, a server that cannot reach its store, nothing
// listening) one clear line (HttpApi.ts, the request). A wait for a job's end polls its record
// (resultPolling.ts).

import type { ChartMarks, MachineGraph } from '../../store/chartModel.js';
import type { EnqueueOptions } from '../../client/validateEnqueue.js';
import type { SendOptions } from '../../client/validateSend.js';
import type { EnqueueInfo } from '../../client/clientOptions.js';
import type { EnqueueBody } from '../../http/enqueueBody.js';
import type { QueueLimitsChange, QueueLimitsView } from '../../client/QueueControls.js';
import { JobNotFoundError } from '../../errors.js';
import {
  type AuditEntry,
  type BrokenEntry,
  type DeadLetter,
  type JobRecord,
  type JobStatus,
  type ListQuery,
  type QueueCounts,
  type FleetWorker,
  type SearchPage,
  type SearchQuery,
} from '../../store/types.js';
import type { CliBackend } from './CliBackend.js';
import type { ScheduleInfo } from '../../client/schedules/ScheduleClient.js';
import type { OverlapPolicy, ScheduleOptions } from '../../client/schedules/scheduleSpec.js';
import { timeArg } from './timeArg.js';
import { HttpApi } from './HttpApi.js';
import { handled, pollMany, pollResult } from './resultPolling.js';

/**
 * The longest `?wait` enqueueAndWait asks: within REQUEST_TIMEOUT_MS (HttpApi.ts) and the
 * server's default maxWaitMs (120 s). A longer wait goes on by polling, which a minimal record may escape.
 */
const SUBMIT_WAIT_MS = 20_000;

/** POST /jobs/batch's answer (docs/http.md): each job in the order sent. */
interface BatchReply {
  jobs: { job_id: string; deduplicated?: boolean; finished?: boolean; job?: unknown }[];
}

/** POST /jobs's body: the machine, its input, and the options that are set. */
function enqueueBody(machine: string, input: unknown, options: EnqueueOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { machine };
  if (input !== undefined) body.input = input;
  for (const [k, v] of Object.entries(options)) if (v !== undefined) body[k] = v;
  return body;
}

const path = (...parts: string[]): string =>
  parts.map((p) => (p.startsWith('/') ? p : `/${encodeURIComponent(p)}`)).join('');

/** A record as the API sends it: no persisted snapshot (docs/http.md); `state` and `context` say it. */
const record = (view: unknown): JobRecord => ({ snapshot: null, ...(view as object) }) as JobRecord;

export class HttpBackend implements CliBackend {
  readonly where: string;

  private readonly api: HttpApi;

  constructor(url: string, token: string | undefined) {
    this.api = new HttpApi(url, token);
    this.where = this.api.where;
  }

  /** The server checks inputs against the definitions it was given (`serve --jobs`, `dev`). */
  async uncheckedSchema(): Promise<boolean> {
    return false;
  }

  async enqueue(machine: string, input: unknown, options: EnqueueOptions): Promise<string> {
    return (
      await this.api.call<{ job_id: string }>('POST', '/jobs', {}, enqueueBody(machine, input, options))
    ).job_id;
  }

  /**
   * POST /jobs?wait= (the job made with the request's watch on it): the id comes with the answer,
   * 200 with the record, or 202 when the wait passed first; the rest of `timeoutMs` is polled.
   */
  async enqueueAndWait(machine: string, input: unknown, options: EnqueueOptions, timeoutMs: number) {
    const started = Date.now();
    const wait = Math.min(timeoutMs, SUBMIT_WAIT_MS);
    let reply: { job_id?: string };
    try {
      reply = await this.api.call(
        'POST',
        '/jobs',
        { wait: `${wait}ms` },
        enqueueBody(machine, input, options),
      );
    } catch (err) {
      // A server whose maxWaitMs is shorter refuses the wait before it makes the job: submit plainly.
      if ((err as { field?: string }).field !== 'wait') throw err;
      const id = await this.enqueue(machine, input, options);
      return { id, result: handled(this.waitForResult(id, { timeoutMs, queue: options.queue })) };
    }
    if (reply.job_id === undefined) {
      const job = record(reply);
      return { id: job.id, result: Promise.resolve(job) };
    }
    const left = Math.max(0, timeoutMs - (Date.now() - started));
    return {
      id: reply.job_id,
      result: handled(this.waitForResult(reply.job_id, { timeoutMs: left, queue: options.queue })),
    };
  }

  async enqueueMany(jobs: readonly EnqueueBody[]): Promise<EnqueueInfo[]> {
    const reply = await this.api.call<BatchReply>('POST', '/jobs/batch', {}, { jobs });
    return reply.jobs.map((j) => ({ id: j.job_id, deduplicated: j.deduplicated === true }));
  }

  /**
   * POST /jobs/batch?wait= (each job made with the request's watch on it): the finished jobs come
   * with the answer; the rest of `timeoutMs` is polled for the others, one job at a time.
   */
  async enqueueManyAndWait(jobs: readonly EnqueueBody[], timeoutMs: number) {
    const started = Date.now();
    const wait = Math.min(timeoutMs, SUBMIT_WAIT_MS);
    let reply: BatchReply;
    try {
      reply = await this.api.call<BatchReply>('POST', '/jobs/batch', { wait: `${wait}ms` }, { jobs });
    } catch (err) {
      // A server whose maxWaitMs is shorter refuses the wait before it makes the jobs: submit plainly.
      if ((err as { field?: string }).field !== 'wait') throw err;
      reply = {
        jobs: (await this.enqueueMany(jobs)).map((i) => ({ job_id: i.id, deduplicated: i.deduplicated })),
      };
    }
    const left = Math.max(0, timeoutMs - (Date.now() - started));
    const open = reply.jobs.flatMap((j, i) => (j.finished ? [] : [{ id: j.job_id, queue: jobs[i]?.queue }]));
    const polled = pollMany((i, q) => this.get(i, q), open, left);
    return reply.jobs.map((j) => ({
      id: j.job_id,
      deduplicated: j.deduplicated === true,
      result: j.finished ? Promise.resolve(record(j.job)) : polled.get(j.job_id)!,
    }));
  }

  async get(id: string, queue?: string): Promise<JobRecord | null> {
    try {
      return record(await this.api.call('GET', path('/jobs', id), { queue }));
    } catch (err) {
      if (err instanceof JobNotFoundError) return null;
      throw err;
    }
  }

  waitForResult(id: string, options: { timeoutMs: number; queue?: string }): Promise<JobRecord> {
    return pollResult((i, q) => this.get(i, q), id, options);
  }

  async events(id: string, queue?: string): Promise<AuditEntry[]> {
    return (await this.api.call<{ events: AuditEntry[] }>('GET', path('/jobs', id, '/events'), { queue }))
      .events;
  }

  async send(
    id: string,
    event: { type: string; [key: string]: unknown },
    options: SendOptions,
  ): Promise<void> {
    const { queue, ...rest } = options;
    const body: Record<string, unknown> = { event };
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) body[k] = v;
    await this.api.call('POST', path('/jobs', id, '/events'), { queue }, body);
  }

  async list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    const page = await this.api.call<{ jobs: unknown[]; cursor: string | null }>('GET', '/jobs', {
      ...query,
    });
    return { jobs: page.jobs.map(record), cursor: page.cursor };
  }

  async search(query: SearchQuery): Promise<SearchPage<JobRecord>> {
    const { where, ...rest } = query;
    // Each filter as the route reads it back (parseFilter): the value as JSON, so a text "42" stays a text.
    const text = where?.map((f) => `${f.path} ${f.op} ${JSON.stringify(f.value)}`);
    const page = await this.api.call<SearchPage<unknown>>('GET', '/jobs/search', { ...rest, where: text });
    return { ...page, jobs: page.jobs.map(record) };
  }

  async workers(): Promise<FleetWorker[]> {
    return (await this.api.call<{ workers: FleetWorker[] }>('GET', '/workers')).workers;
  }

  async cancel(id: string, queue?: string): Promise<{ cancelled: boolean; status: JobStatus }> {
    const r = await this.api.call<{ cancelled: boolean }>('POST', path('/jobs', id, '/cancel'), { queue });
    const job = await this.get(id, queue);
    return { cancelled: r.cancelled, status: job?.status ?? 'cancelled' };
  }

  async deadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    return (await this.api.call<{ deadLetters: DeadLetter[] }>('GET', '/dead-letters', { queue, limit }))
      .deadLetters;
  }

  async broken(queue: string, limit: number): Promise<BrokenEntry[]> {
    return (await this.api.call<{ brokenJobs: BrokenEntry[] }>('GET', '/broken-jobs', { queue, limit }))
      .brokenJobs;
  }

  async retryDeadLetter(id: string, queue?: string): Promise<void> {
    await this.api.call('POST', path('/dead-letters', id, '/retry'), { queue });
  }

  async purgeDeadLetters(queue: string): Promise<number> {
    return (await this.api.call<{ purged: number }>('DELETE', '/dead-letters', { queue })).purged;
  }

  async counts(queue?: string): Promise<Record<string, QueueCounts>> {
    const r = await this.api.call<{ queues: { name: string; counts: QueueCounts }[] }>('GET', '/queues', {
      queue,
    });
    return Object.fromEntries(r.queues.map((q) => [q.name, q.counts]));
  }

  async configureQueue(queue: string, partitions: number): Promise<void> {
    await this.api.call('PUT', path('/queues', queue, '/partitions'), {}, { partitions });
  }

  async schedules(): Promise<ScheduleInfo[]> {
    return (await this.api.call<{ schedules: ScheduleInfo[] }>('GET', '/schedules')).schedules;
  }

  setSchedule(id: string, options: ScheduleOptions): Promise<ScheduleInfo> {
    return this.api.call('PUT', path('/schedules', id), {}, options);
  }

  pauseSchedule(id: string, note?: string): Promise<ScheduleInfo> {
    return this.api.call('POST', path('/schedules', id, '/pause'), {}, note === undefined ? {} : { note });
  }

  resumeSchedule(id: string): Promise<ScheduleInfo> {
    return this.api.call('POST', path('/schedules', id, '/resume'));
  }

  async removeSchedule(id: string): Promise<void> {
    await this.api.call('DELETE', path('/schedules', id));
  }

  async triggerSchedule(id: string): Promise<string | null> {
    return (await this.api.call<{ job_id: string | null }>('POST', path('/schedules', id, '/trigger')))
      .job_id;
  }

  async backfillSchedule(id: string, from: string, to: string, overlap?: OverlapPolicy): Promise<string[]> {
    const body = { from: timeArg(from), to: timeArg(to), ...(overlap ? { overlap } : {}) };
    return (await this.api.call<{ job_ids: string[] }>('POST', path('/schedules', id, '/backfill'), {}, body))
      .job_ids;
  }

  async pauseQueue(queue: string, paused: boolean): Promise<void> {
    await this.api.call('POST', path('/queues', queue, paused ? '/pause' : '/resume'), {}, {});
  }

  async pauseKey(queue: string, key: string, paused: boolean): Promise<void> {
    await this.api.call(
      'POST',
      path('/queues', queue, '/keys', '/' + encodeURIComponent(key), paused ? '/pause' : '/resume'),
      {},
      {},
    );
  }

  queueLimits(queue: string, change?: QueueLimitsChange): Promise<QueueLimitsView> {
    if (change) return this.api.call('PUT', path('/queues', queue, '/limits'), {}, change);
    return this.api.call('GET', path('/queues', queue, '/limits'));
  }

  machineChart(name: string, version?: number): Promise<MachineGraph> {
    return this.api.call('GET', path('/machines', name, '/chart'), { version });
  }

  jobChart(id: string, queue?: string): Promise<{ graph: MachineGraph; marks: ChartMarks }> {
    return this.api.call('GET', path('/jobs', id, '/chart'), { queue });
  }

  /**
   * The API serves no clock: countdowns use this machine's. A server elsewhere whose clock is
   * skewed shows its due times right and the countdowns off by the skew.
   */
  now(): Promise<number> {
    return Promise.resolve(Date.now());
  }

  async close(): Promise<void> {}
}
