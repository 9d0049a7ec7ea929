// The CLI through the HTTP API of a running `machinist serve` or `dev` (`--url`, MACHINIST_URL):
// what `npm start` runs on its embedded store can only be reached this way. Each call is one
// request (Node's fetch) to a route of docs/http.md; the server's error body becomes the same
// typed error the store path throws (JOB_NOT_FOUND is `no job <id>`, UNKNOWN_MACHINE exit 3),
// and what only HTTP has (a refused token, a server that cannot reach its store, nothing
// listening) one clear line.

import type { ChartMarks, MachineGraph } from '../../store/chartModel.js';
import type { EnqueueOptions } from '../../client/validateEnqueue.js';
import type { SendOptions } from '../../client/validateSend.js';
import type { EnqueueInfo } from '../../client/clientOptions.js';
import type { EnqueueBody } from '../../http/enqueueBody.js';
import type { QueueLimitsChange, QueueLimitsView } from '../../client/QueueControls.js';
import { JobNotFoundError, MachinistError, TimeoutError } from '../../errors.js';
import {
  FINISHED,
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
import { CliError, EXIT } from '../CliError.js';
import type { CliBackend } from './CliBackend.js';
import type { ScheduleInfo } from '../../client/schedules/ScheduleClient.js';
import type { OverlapPolicy, ScheduleOptions } from '../../client/schedules/scheduleSpec.js';
import { timeArg } from './timeArg.js';
import { CODE, type ErrorCode } from '../../errorCodes.js';

/** A request the server does not answer in this long fails (no route the CLI uses holds one). */
const REQUEST_TIMEOUT_MS = 30_000;
/** How often waitForResult looks at the job (the API's ?wait is for a submit only). */
const POLL_MS = 200;
/**
 * The longest `?wait` enqueueAndWait asks: within REQUEST_TIMEOUT_MS and the server's default
 * maxWaitMs (120 s). A longer wait goes on by polling, which a minimal record may escape.
 */
const SUBMIT_WAIT_MS = 20_000;

type Query = Record<string, string | number | readonly string[] | undefined>;

interface ErrorBody {
  error?: {
    code?: string;
    message?: string;
    jobId?: string;
    machine?: string;
    queue?: string;
    field?: string;
    index?: number;
  };
}

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

/** `p`, marked handled: its caller awaits it after other awaits, and gets its rejection then. */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

const path = (...parts: string[]): string =>
  parts.map((p) => (p.startsWith('/') ? p : `/${encodeURIComponent(p)}`)).join('');

/** A record as the API sends it: no persisted snapshot (docs/http.md); `state` and `context` say it. */
const record = (view: unknown): JobRecord => ({ snapshot: null, ...(view as object) }) as JobRecord;

export class HttpBackend implements CliBackend {
  readonly where: string;

  constructor(
    url: string,
    private readonly token: string | undefined,
  ) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new CliError(`invalid --url '${url}': expected http://host:port`, EXIT.usage);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new CliError(`invalid --url '${url}': expected an http:// or https:// URL`, EXIT.usage);
    this.where = parsed.toString().replace(/\/+$/, '');
  }

  /** The reply's JSON for a 2xx; anything else thrown as the error it stands for. */
  private async call<T>(method: string, route: string, query: Query = {}, body?: unknown): Promise<T> {
    const url = new URL(this.where + route);
    for (const [k, v] of Object.entries(query)) {
      if (Array.isArray(v)) for (const one of v) url.searchParams.append(k, one);
      else if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why =
        (err as Error).name === 'TimeoutError'
          ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`
          : (cause?.code ?? cause?.message ?? (err as Error).message);
      throw new CliError(`cannot reach Machinist at ${this.where}: ${why}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new CliError(
        `${this.where} answered ${method} ${route} with ${res.status} and no JSON: is it Machinist?`,
      );
    }
    if (res.ok) return parsed as T;
    throw this.failure(res.status, method, route, (parsed as ErrorBody | undefined)?.error);
  }

  private failure(status: number, method: string, route: string, e: ErrorBody['error']): Error {
    const code = e?.code ?? `HTTP_${status}`;
    const message = e?.message ?? `${method} ${route} answered ${status}`;
    if (status === 401)
      return new CliError(
        this.token
          ? `${this.where} refused the token (--token, MACHINIST_TOKEN): ${message} [${code}]`
          : `${this.where} needs a token: give --token or set MACHINIST_TOKEN [${code}]`,
      );
    if (status === 403)
      return new CliError(
        `the token may not ${method === 'GET' ? 'read' : 'write'} at ${this.where} [${code}]`,
      );
    if (status === 503)
      return new CliError(`the server at ${this.where} cannot reach its store: ${message} [${code}]`);
    if (code === CODE.JOB_NOT_FOUND && e?.jobId) return new JobNotFoundError(e.jobId, e.queue);
    // A route this server does not have (a release before it): not "no such job".
    if (status === 404 && code === CODE.NOT_FOUND && !e?.machine)
      return new CliError(`${this.where} has no ${method} ${route}: ${message} [${code}]`);
    // The server's code as it sent it (a newer server may send one this release does not know).
    return new MachinistError(code as ErrorCode, message, {
      jobId: e?.jobId,
      machine: e?.machine,
      queue: e?.queue,
      field: e?.field,
      index: e?.index,
    });
  }

  /** The server checks inputs against the definitions it was given (`serve --jobs`, `dev`). */
  async uncheckedSchema(): Promise<boolean> {
    return false;
  }

  async enqueue(machine: string, input: unknown, options: EnqueueOptions): Promise<string> {
    return (await this.call<{ job_id: string }>('POST', '/jobs', {}, enqueueBody(machine, input, options)))
      .job_id;
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
      reply = await this.call('POST', '/jobs', { wait: `${wait}ms` }, enqueueBody(machine, input, options));
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
    const reply = await this.call<BatchReply>('POST', '/jobs/batch', {}, { jobs });
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
      reply = await this.call<BatchReply>('POST', '/jobs/batch', { wait: `${wait}ms` }, { jobs });
    } catch (err) {
      // A server whose maxWaitMs is shorter refuses the wait before it makes the jobs: submit plainly.
      if ((err as { field?: string }).field !== 'wait') throw err;
      reply = {
        jobs: (await this.enqueueMany(jobs)).map((i) => ({ job_id: i.id, deduplicated: i.deduplicated })),
      };
    }
    const left = Math.max(0, timeoutMs - (Date.now() - started));
    const open = reply.jobs.flatMap((j, i) => (j.finished ? [] : [{ id: j.job_id, queue: jobs[i]?.queue }]));
    const polled = this.pollMany(open, left);
    return reply.jobs.map((j) => ({
      id: j.job_id,
      deduplicated: j.deduplicated === true,
      result: j.finished ? Promise.resolve(record(j.job)) : polled.get(j.job_id)!,
    }));
  }

  /**
   * waitForResult for many jobs, polled in rounds (each job once a round, one request at a
   * time), so a thousand open jobs do not make a thousand requests every POLL_MS.
   */
  private pollMany(
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
          const job = await this.get(j.id, j.queue);
          if (!job) settle.get(j.id)!.reject(new JobNotFoundError(j.id, j.queue));
          else if (FINISHED.has(job.status)) settle.get(j.id)!.resolve(job);
          else if (Date.now() >= end)
            settle.get(j.id)!.reject(TimeoutError.forJob(j.id, job.queue, timeoutMs));
          else next.push(j);
        }
        open = next;
        if (open.length > 0)
          await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, end - Date.now()))));
      }
    };
    poll().catch((err: unknown) => {
      for (const s of settle.values()) s.reject(err);
    });
    return results;
  }

  async get(id: string, queue?: string): Promise<JobRecord | null> {
    try {
      return record(await this.call('GET', path('/jobs', id), { queue }));
    } catch (err) {
      if (err instanceof JobNotFoundError) return null;
      throw err;
    }
  }

  async waitForResult(id: string, options: { timeoutMs: number; queue?: string }): Promise<JobRecord> {
    const end = Date.now() + options.timeoutMs;
    for (;;) {
      const job = await this.get(id, options.queue);
      if (!job) throw new JobNotFoundError(id, options.queue);
      if (FINISHED.has(job.status)) return job;
      if (Date.now() >= end) throw TimeoutError.forJob(id, job.queue, options.timeoutMs);
      await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, end - Date.now()))));
    }
  }

  async events(id: string, queue?: string): Promise<AuditEntry[]> {
    return (await this.call<{ events: AuditEntry[] }>('GET', path('/jobs', id, '/events'), { queue })).events;
  }

  async send(
    id: string,
    event: { type: string; [key: string]: unknown },
    options: SendOptions,
  ): Promise<void> {
    const { queue, ...rest } = options;
    const body: Record<string, unknown> = { event };
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) body[k] = v;
    await this.call('POST', path('/jobs', id, '/events'), { queue }, body);
  }

  async list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    const page = await this.call<{ jobs: unknown[]; cursor: string | null }>('GET', '/jobs', { ...query });
    return { jobs: page.jobs.map(record), cursor: page.cursor };
  }

  async search(query: SearchQuery): Promise<SearchPage<JobRecord>> {
    const { where, ...rest } = query;
    // Each filter as the route reads it back (parseFilter): the value as JSON, so a text "42" stays a text.
    const text = where?.map((f) => `${f.path} ${f.op} ${JSON.stringify(f.value)}`);
    const page = await this.call<SearchPage<unknown>>('GET', '/jobs/search', { ...rest, where: text });
    return { ...page, jobs: page.jobs.map(record) };
  }

  async workers(): Promise<FleetWorker[]> {
    return (await this.call<{ workers: FleetWorker[] }>('GET', '/workers')).workers;
  }

  async cancel(id: string, queue?: string): Promise<{ cancelled: boolean; status: JobStatus }> {
    const r = await this.call<{ cancelled: boolean }>('POST', path('/jobs', id, '/cancel'), { queue });
    const job = await this.get(id, queue);
    return { cancelled: r.cancelled, status: job?.status ?? 'cancelled' };
  }

  async deadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    return (await this.call<{ deadLetters: DeadLetter[] }>('GET', '/dead-letters', { queue, limit }))
      .deadLetters;
  }

  async broken(queue: string, limit: number): Promise<BrokenEntry[]> {
    return (await this.call<{ brokenJobs: BrokenEntry[] }>('GET', '/broken-jobs', { queue, limit }))
      .brokenJobs;
  }

  async retryDeadLetter(id: string, queue?: string): Promise<void> {
    await this.call('POST', path('/dead-letters', id, '/retry'), { queue });
  }

  async purgeDeadLetters(queue: string): Promise<number> {
    return (await this.call<{ purged: number }>('DELETE', '/dead-letters', { queue })).purged;
  }

  async counts(queue?: string): Promise<Record<string, QueueCounts>> {
    const r = await this.call<{ queues: { name: string; counts: QueueCounts }[] }>('GET', '/queues', {
      queue,
    });
    return Object.fromEntries(r.queues.map((q) => [q.name, q.counts]));
  }

  async configureQueue(queue: string, partitions: number): Promise<void> {
    await this.call('PUT', path('/queues', queue, '/partitions'), {}, { partitions });
  }

  async schedules(): Promise<ScheduleInfo[]> {
    return (await this.call<{ schedules: ScheduleInfo[] }>('GET', '/schedules')).schedules;
  }

  setSchedule(id: string, options: ScheduleOptions): Promise<ScheduleInfo> {
    return this.call('PUT', path('/schedules', id), {}, options);
  }

  pauseSchedule(id: string, note?: string): Promise<ScheduleInfo> {
    return this.call('POST', path('/schedules', id, '/pause'), {}, note === undefined ? {} : { note });
  }

  resumeSchedule(id: string): Promise<ScheduleInfo> {
    return this.call('POST', path('/schedules', id, '/resume'));
  }

  async removeSchedule(id: string): Promise<void> {
    await this.call('DELETE', path('/schedules', id));
  }

  async triggerSchedule(id: string): Promise<string | null> {
    return (await this.call<{ job_id: string | null }>('POST', path('/schedules', id, '/trigger'))).job_id;
  }

  async backfillSchedule(id: string, from: string, to: string, overlap?: OverlapPolicy): Promise<string[]> {
    const body = { from: timeArg(from), to: timeArg(to), ...(overlap ? { overlap } : {}) };
    return (await this.call<{ job_ids: string[] }>('POST', path('/schedules', id, '/backfill'), {}, body))
      .job_ids;
  }

  async pauseQueue(queue: string, paused: boolean): Promise<void> {
    await this.call('POST', path('/queues', queue, paused ? '/pause' : '/resume'), {}, {});
  }

  async pauseKey(queue: string, key: string, paused: boolean): Promise<void> {
    await this.call(
      'POST',
      path('/queues', queue, '/keys', '/' + encodeURIComponent(key), paused ? '/pause' : '/resume'),
      {},
      {},
    );
  }

  queueLimits(queue: string, change?: QueueLimitsChange): Promise<QueueLimitsView> {
    if (change) return this.call('PUT', path('/queues', queue, '/limits'), {}, change);
    return this.call('GET', path('/queues', queue, '/limits'));
  }

  machineChart(name: string, version?: number): Promise<MachineGraph> {
    return this.call('GET', path('/machines', name, '/chart'), { version });
  }

  jobChart(id: string, queue?: string): Promise<{ graph: MachineGraph; marks: ChartMarks }> {
    return this.call('GET', path('/jobs', id, '/chart'), { queue });
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
