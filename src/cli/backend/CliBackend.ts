// What the CLI's job commands (enqueue, status, events, send, ls, cancel, dlq, chart, stats) need
// from a deployment, as one interface: a store opened from --redis (StoreBackend.ts), or the
// HTTP API of a running `machinist serve` / `dev` (`--url`, HttpBackend.ts). The commands use
// only this, so each reads the same whichever it talks to.

import type { ChartMarks, MachineGraph } from '../../store/chartModel.js';
import type { EnqueueOptions } from '../../client/validateEnqueue.js';
import type { SendOptions } from '../../client/validateSend.js';
import type { EnqueueInfo } from '../../client/clientOptions.js';
import type { EnqueueBody } from '../../http/enqueueBody.js';
import type { ScheduleInfo } from '../../client/schedules/ScheduleClient.js';
import type { OverlapPolicy, ScheduleOptions } from '../../client/schedules/scheduleSpec.js';
import type { QueueLimitsChange, QueueLimitsView } from '../../client/QueueControls.js';
import type {
  AuditEntry,
  BrokenEntry,
  DeadLetter,
  JobRecord,
  JobStatus,
  ListQuery,
  QueueCounts,
  FleetWorker,
  SearchPage,
  SearchQuery,
} from '../../store/types.js';

export interface CliBackend {
  /** Where the commands' data comes from, for messages: `Redis at redis://…, prefix 'x'`, `http://…`. */
  readonly where: string;
  enqueue(machine: string, input: unknown, options: EnqueueOptions): Promise<string>;
  /** True when the machine declares an input schema that this backend's enqueue did not check. */
  uncheckedSchema(machine: string): Promise<boolean>;
  /** The job's record, null when there is none. Over HTTP it has no `snapshot`. */
  get(id: string, queue?: string): Promise<JobRecord | null>;
  /**
   * Enqueues and waits for the job's end in one step (Client.enqueueAndWait; POST /jobs?wait=):
   * `id` once the job is stored, `result` as waitForResult's. A job that ends at once, and whose
   * record goes as it ends (a minimal one), is still seen.
   */
  enqueueAndWait(
    machine: string,
    input: unknown,
    options: EnqueueOptions,
    timeoutMs: number,
  ): Promise<{ id: string; result: Promise<JobRecord> }>;
  /**
   * Enqueues a batch all or nothing (Client.enqueueManyWithInfo; POST /jobs/batch, at most
   * MAX_BATCH_JOBS): each job's id and whether a key kept it, in order. A refused job rejects the
   * call with an error naming it (`index`, or `jobs.<n>` in `field`) and nothing is written.
   */
  enqueueMany(jobs: readonly EnqueueBody[]): Promise<EnqueueInfo[]>;
  /**
   * enqueueMany with each job's end (Client.enqueueManyAndWaitWithInfo; POST /jobs/batch?wait=):
   * every job made with the wait's watch on it; each `result` rejects with TIMEOUT at `timeoutMs`.
   */
  enqueueManyAndWait(
    jobs: readonly EnqueueBody[],
    timeoutMs: number,
  ): Promise<(EnqueueInfo & { result: Promise<JobRecord> })[]>;
  /** Resolves with the finished record; rejects with TIMEOUT after `timeoutMs`, JOB_NOT_FOUND. */
  waitForResult(id: string, options: { timeoutMs: number; queue?: string }): Promise<JobRecord>;
  events(id: string, queue?: string): Promise<AuditEntry[]>;
  send(id: string, event: { type: string; [key: string]: unknown }, options: SendOptions): Promise<void>;
  list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }>;
  /** A bounded scan for jobs (JobSearch; GET /jobs/search); INVALID_INPUT for a bad query. */
  search(query: SearchQuery): Promise<SearchPage<JobRecord>>;
  /** The supervisors, live, stopped and gone (Fleet; GET /workers). */
  workers(): Promise<FleetWorker[]>;
  /** Cancels the job and its subtree: false when it had already finished; `status` is its status after. */
  cancel(id: string, queue?: string): Promise<{ cancelled: boolean; status: JobStatus }>;
  deadLetters(queue: string, limit: number): Promise<DeadLetter[]>;
  broken(queue: string, limit: number): Promise<BrokenEntry[]>;
  retryDeadLetter(id: string, queue?: string): Promise<void>;
  purgeDeadLetters(queue: string): Promise<number>;
  /** Job counts per status of each queue (only `queue` when given). */
  counts(queue?: string): Promise<Record<string, QueueCounts>>;
  /** Splits a queue into partitions (Client.configureQueue; PUT /queues/:queue/partitions). */
  configureQueue(queue: string, partitions: number): Promise<void>;
  /** Schedules (docs/schedules.md): the Client's schedule methods, or the /schedules routes. */
  schedules(): Promise<ScheduleInfo[]>;
  setSchedule(id: string, options: ScheduleOptions): Promise<ScheduleInfo>;
  pauseSchedule(id: string, note?: string): Promise<ScheduleInfo>;
  resumeSchedule(id: string): Promise<ScheduleInfo>;
  /** SCHEDULE_NOT_FOUND when there was none. */
  removeSchedule(id: string): Promise<void>;
  triggerSchedule(id: string): Promise<string | null>;
  backfillSchedule(id: string, from: string, to: string, overlap?: OverlapPolicy): Promise<string[]>;
  /** Pauses or resumes a queue (Client.pauseQueue / resumeQueue; POST /queues/:queue/pause|resume). */
  pauseQueue(queue: string, paused: boolean): Promise<void>;
  /** Pauses or resumes one concurrency key (Client.pauseKey / resumeKey; POST /queues/:queue/keys/:key/pause|resume). */
  pauseKey(queue: string, key: string, paused: boolean): Promise<void>;
  /** A queue's limits and use, after setting `change` when given (Client.setQueueLimits; PUT /queues/:queue/limits). */
  queueLimits(queue: string, change?: QueueLimitsChange): Promise<QueueLimitsView>;
  /** The chart model of name@version (newest when none is given); UNKNOWN_MACHINE, NO_CHART. */
  machineChart(name: string, version?: number): Promise<MachineGraph>;
  /** A job's machine chart and its marks (active states, states and transitions it went through). */
  jobChart(id: string, queue?: string): Promise<{ graph: MachineGraph; marks: ChartMarks }>;
  /** The deployment's clock (countdowns to timers). */
  now(): Promise<number>;
  close(): Promise<void>;
}
