// The client: enqueue jobs, look at them, wait for their results, cancel them. Built with `jobs`,
// it is typed by them (jobTypes.ts): names, inputs and outputs are checked at compile time.

import { monotonicFactory } from 'ulid';
import { JobNotFoundError, MachinistError, ValidationError } from '../errors.js';
import { Registry, type AnyDefinition } from '../runtime/registry.js';
import type {
  AuditEntry,
  BrokenEntry,
  DeadLetter,
  JobRecord,
  ListQuery,
  NewJob,
  Store,
} from '../store/types.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, serializeInput, type EnqueueOptions } from './validateEnqueue.js';
import { PartitionedQueues } from './PartitionedQueues.js';
import { QueueControls, type QueueLimitsChange, type QueueLimitsView } from './QueueControls.js';
import { assertQueueName } from '../store/keys.js';
import type { ChildJob } from '../runtime/AttemptHost.js';
import type {
  EnqueueArgs,
  EnqueueItem,
  EnqueueItems,
  InputFor,
  JobId,
  JobIdsOf,
  JobRef,
  OutputFor,
} from './jobTypes.js';
import { encodeInboxEvent } from '../runtime/inboxEvent.js';
import { validateSend, type SendOptions } from './validateSend.js';
import type { PublishSpan } from '../tracing/publishSpan.js';
import { CODE } from '../errorCodes.js';
import { MachineFactsLookup, machineName } from './MachineFactsLookup.js';
import { JobPreparer, endPublish, type Prepared } from './JobPreparer.js';
import { EnqueueBatcher } from './EnqueueBatcher.js';
import { ResultWaiters } from './ResultWaiters.js';
import { cancelDescendants } from './cancelDescendants.js';
import { enqueueChildren } from './enqueueChildren.js';
import { ScheduleClient, type ScheduleInfo } from './schedules/ScheduleClient.js';
import type { OverlapPolicy, ScheduleOptions, TimeInput } from './schedules/scheduleSpec.js';

export interface ClientOptions<D extends AnyDefinition = AnyDefinition> {
  store: Store;
  /**
   * Definitions to check names against, which also type the client: `enqueue` then takes only
   * their names (or the definitions) with their input types. Without them, the registry that
   * supervisors publish, and any name and input.
   */
  jobs?: readonly D[];
  /** Queue for enqueues that name none. Default 'default'. */
  queue?: string;
  /** Largest accepted input, serialized. Default 1 MiB. */
  maxPayloadBytes?: number;
  /**
   * @internal A supervisor's own definitions: the children its jobs enqueue are checked against
   * their input schemas (for the version the registry says runs). Unlike `jobs`, other names are
   * still taken, through the published registry.
   */
  inputSchemasFrom?: Registry;
  /**
   * With `@opentelemetry/api` installed and a tracer provider registered, each enqueue is a
   * `publish <queue>` span whose context is stored with the job (its attempts link to it).
   * Default true; false never loads the API.
   */
  tracing?: boolean;
}

export type { SendOptions } from './validateSend.js';

const ulid = monotonicFactory();

/**
 * Enqueues jobs and reads them. `D` is the union of the definitions in `jobs` (inferred), or
 * `never` for a client built without them, which takes any name and input.
 * @example
 * const client = new Client({ store, jobs: [resize] });
 * const id = await client.enqueue('resize', { url, width: 640 }); // input checked against resize's
 * const job = await client.waitForResult(id); // job.output: resize's output | null
 */
export class Client<D extends AnyDefinition = never> {
  readonly store: Store;
  private readonly defaultQueue: string;
  private readonly maxPayloadBytes: number;
  private readonly facts: MachineFactsLookup;
  private readonly preparer: JobPreparer;
  private readonly batcher: EnqueueBatcher;
  private readonly waiters: ResultWaiters;
  /** Where a job of a partitioned queue is stored (docs/partitions.md). */
  private readonly partitioned: PartitionedQueues;
  /** Pause, resume and the limits of queues (docs/flow-control.md). */
  private readonly controls: QueueControls;
  /** The schedule methods' logic (schedules/ScheduleClient.ts). */
  private readonly scheduling: ScheduleClient;

  constructor(options: ClientOptions<D>) {
    if (!options?.store) throw new TypeError('Client: store is required');
    this.store = options.store;
    const local = options.jobs ? new Registry(options.jobs) : undefined;
    this.facts = new MachineFactsLookup(this.store, local, options.inputSchemasFrom);
    this.defaultQueue = options.queue ?? 'default';
    assertQueueName(this.defaultQueue);
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    this.preparer = new JobPreparer(options.tracing ?? true, {
      queue: this.defaultQueue,
      maxPayloadBytes: this.maxPayloadBytes,
    });
    this.batcher = new EnqueueBatcher(this.store);
    this.partitioned = new PartitionedQueues(this.store, this.defaultQueue);
    this.controls = new QueueControls(this.store, this.partitioned.router);
    this.waiters = new ResultWaiters(this.store, (id, queue) => this.jobQueue(id, queue));
    this.scheduling = new ScheduleClient({
      store: this.store,
      facts: this.facts,
      router: this.partitioned.router,
      defaultQueue: this.defaultQueue,
      maxPayloadBytes: this.maxPayloadBytes,
    });
  }

  // Schedules (docs/schedules.md): the logic is in schedules/ScheduleClient.ts.

  /**
   * Creates schedule `id` or updates it (an upsert): a job of `machine` at each tick of `cron`
   * (or every `everyMs`), once per tick however many supervisors run. Refused with
   * INVALID_SCHEDULE naming the field (a bad cron or time zone, everyMs below 100 ms, endAt before
   * startAt), UNKNOWN_MACHINE, or the input schema's error.
   * @example await client.schedule('nightly', { cron: '30 2 * * *', timezone: 'Europe/Rome', machine: 'report' });
   */
  schedule(id: string, options: ScheduleOptions): Promise<ScheduleInfo> {
    return this.scheduling.upsert(id, options);
  }

  /** Every schedule, by id, with its text and next ticks. */
  schedules(): Promise<ScheduleInfo[]> {
    return this.scheduling.list();
  }

  /** One schedule, or null. */
  getSchedule(id: string): Promise<ScheduleInfo | null> {
    return this.scheduling.get(id);
  }

  /** No tick fires while paused; `note` says why. SCHEDULE_NOT_FOUND for an unknown id. */
  pauseSchedule(id: string, note?: string): Promise<ScheduleInfo> {
    return this.scheduling.pause(id, note);
  }

  /** Ticks resume after now (the paused ones are not run). */
  resumeSchedule(id: string): Promise<ScheduleInfo> {
    return this.scheduling.resume(id);
  }

  /** Deletes it (its jobs stay); false when there was none. */
  removeSchedule(id: string): Promise<boolean> {
    return this.scheduling.remove(id);
  }

  /** One run now, obeying the overlap policy: the job id, or null when the policy started none. */
  triggerSchedule(id: string): Promise<string | null> {
    return this.scheduling.trigger(id);
  }

  /** Runs for the ticks in [from, to] under `overlap` (default allowAll): the job ids started. */
  backfillSchedule(id: string, from: TimeInput, to: TimeInput, overlap?: OverlapPolicy): Promise<string[]> {
    return this.scheduling.backfill(id, from, to, overlap);
  }

  /** Job `id`, in the partition its id names (PartitionedQueues.findJob). */
  private findJob(id: string, queue: string | undefined): Promise<JobRecord | null> {
    return this.partitioned.findJob(id, queue);
  }

  /** The stored queue of job `id` named with `queue` (undefined: the store looks in every queue). */
  private jobQueue(id: string, queue: string | undefined): Promise<string | undefined> {
    return this.partitioned.storedQueue(id, queue);
  }

  /**
   * Splits `queue` into `partitions` partitions, each its own hash tag, so that on a Redis
   * Cluster they spread over shards (docs/partitions.md). Kept by the store, so every client and
   * supervisor routes alike. Refused with PARTITIONS_IN_USE while the queue or a partition of it
   * holds any job (moving jobs between partitions is a migrate step); the same count again is a
   * no-op. Supervisors started before the change serve the new partitions after a restart.
   * @example await client.configureQueue('emails', { partitions: 4 });
   */
  configureQueue(queue: string, settings: { partitions: number }): Promise<void> {
    return this.partitioned.configure(queue, settings);
  }

  /**
   * One job made ready to store: its machine looked up, its queue (partition) and id chosen, and
   * built and checked (JobPreparer). Every enqueue path of the Client goes through here.
   */
  private async prepareOne(
    name: string,
    input: unknown,
    options: EnqueueOptions | undefined,
  ): Promise<Prepared> {
    const loading = this.preparer.tracingLoad();
    if (loading) await loading;
    // Resolved without a microtask when the machine is known locally (or cached).
    const m = this.facts.machineInfo(name);
    // Marked handled now: it is awaited after the routing, and an unknown machine's rejection
    // must not surface meanwhile as an unhandled one (the caller gets it from the await below).
    if (m instanceof Promise) m.catch(() => undefined);
    const routed = this.partitioned.route(name, options);
    const r = routed instanceof Promise ? await routed : routed;
    const prepared = this.preparer.prepare(
      name,
      input,
      r.options,
      m instanceof Promise ? await m : m,
      r.id === undefined ? undefined : { id: r.id, trace: undefined },
    );
    // Awaited only when it is a Promise (an async input schema).
    return prepared instanceof Promise ? await prepared : prepared;
  }

  /**
   * Enqueues one job; resolves with its id (a ULID) once it is stored. `machine` is a name or a
   * definition (which stands for its name: the newest registered version runs). On a typed
   * client the input is checked against that job's input type, and the id remembers its output.
   * Calls made in the same tick are sent together: one script call per queue for all of them
   * (each job is still its own record, with its own idempotency key and events; a Redis error
   * rejects every call of that batch).
   * @example const id = await client.enqueue('resize', { path: 'a.png' }, { priority: 'high' });
   */
  async enqueue<Ref extends JobRef<D>>(
    machine: Ref,
    ...args: EnqueueArgs<InputFor<D, Ref>>
  ): Promise<JobId<OutputFor<D, Ref>>>;
  async enqueue(machine: string | AnyDefinition, input?: unknown, options?: EnqueueOptions): Promise<string> {
    // Calls made in one tick still batch: prepareOne awaits nothing once the machine and the
    // queue's partition count are known (and the input schema is synchronous).
    const p = await this.prepareOne(machineName(machine), input, options);
    const written = this.batcher.add(p.queue, p.job);
    return p.publish ? endPublish(written, p.publish) : written;
  }

  /**
   * Enqueues many jobs: one round trip per queue, all-or-nothing per queue. Each item is typed
   * like `enqueue`'s arguments; the ids come back in order.
   */
  async enqueueMany<const Refs extends readonly JobRef<D>[]>(
    items: EnqueueItems<D, Refs>,
  ): Promise<JobIdsOf<D, Refs>>;
  async enqueueMany(items: readonly EnqueueItem[]): Promise<string[]> {
    if (!Array.isArray(items))
      throw new ValidationError('enqueueMany takes an array of { machine, input, options }', {
        field: 'items',
      });
    const byQueue = new Map<string, { index: number; job: NewJob }[]>();
    const spans: PublishSpan[] = [];
    for (let index = 0; index < items.length; index++) {
      const item = items[index] as EnqueueItem | undefined;
      if (!item || typeof item !== 'object')
        throw new ValidationError(`item ${index} must be an object`, { field: `items[${index}]` });
      const p = await this.prepareOne(machineName(item.machine), item.input, item.options);
      if (p.publish) spans.push(p.publish);
      const list = byQueue.get(p.queue);
      if (list) list.push({ index, job: p.job });
      else byQueue.set(p.queue, [{ index, job: p.job }]);
    }
    const ids: string[] = new Array(items.length);
    const written = Promise.all(
      [...byQueue.entries()].map(async ([queue, list]) => {
        const res = await this.store.enqueue(
          queue,
          list.map((l) => l.job),
        );
        res.forEach((r, k) => (ids[list[k]!.index] = r.id));
      }),
    );
    await (spans.length > 0 ? endPublish(written, ...spans) : written);
    return ids;
  }

  /**
   * The job's record, or null when there is none (never existed, or expired). Given an id from
   * a typed enqueue, `output` has that job's output type.
   */
  async get<Output = unknown>(
    id: JobId<Output> | string,
    options: { queue?: string } = {},
  ): Promise<JobRecord<Output> | null> {
    const job = (await this.findJob(id, options.queue)) as JobRecord<Output> | null;
    if (!job) return null;
    const groups = await this.store.fanGroups(id, job.queue);
    if (groups.length > 0) {
      const total = groups.reduce((n, g) => n + g.total, 0);
      const jobs: { id: string; queue: string; status: JobRecord['status'] }[] = [];
      const finished = groups.reduce((n, g) => n + g.finished, 0);
      for (const queue of await this.store.queues()) {
        if (jobs.length >= 100) break;
        const page = await this.store.list({ queue, parentId: id, limit: 100 - jobs.length });
        for (const c of page.jobs) jobs.push({ id: c.id, queue, status: c.status });
      }
      job.children = { total, finished, jobs };
    }
    return job;
  }

  /**
   * Resolves with the job's record when it reaches done, failed or cancelled; rejects with a
   * TimeoutError after `timeoutMs` (default 30 s) and with JOB_NOT_FOUND for an unknown id.
   * Given an id from a typed enqueue, `output` has that job's output type. `signal` ends the
   * wait early (rejecting with its reason), and with it the watch on the job.
   */
  async waitForResult<Output = unknown>(
    id: JobId<Output> | string,
    options: { timeoutMs?: number; queue?: string; signal?: AbortSignal } = {},
  ): Promise<JobRecord<Output>> {
    return (await this.waiters.waitFor(id, options)) as JobRecord<Output>;
  }

  /**
   * Cancels a job: at once when it is not running; a running job's signal fires within one
   * heartbeat and it ends `cancelled`. Resolves false when the job had already finished.
   */
  async cancel(id: string, options: { queue?: string } = {}): Promise<boolean> {
    const r = await this.store.cancel(id, await this.jobQueue(id, options.queue));
    if (r.hasChildren) await cancelDescendants(this.store, id);
    return r.result !== 'finished';
  }

  /**
   * Enqueues the children of one fan-out group; ids are deterministic, so a repeat is a no-op.
   * `parentToken`: the parent's lease token (its run's fan-out): refused with LEASE_LOST once
   * the parent no longer holds it (see NewJob.parentToken).
   * `trace`: the parent attempt's trace context (an OpenTelemetry Context), under which each
   * child's publish span starts.
   */
  async enqueueChildren(
    parentId: string,
    parentQueue: string,
    group: string,
    jobs: readonly ChildJob[],
    revive?: ReadonlySet<number>,
    parentToken?: string,
    trace?: unknown,
  ): Promise<void> {
    const children = { parentId, parentQueue, group, jobs, revive, parentToken, trace };
    await enqueueChildren(this.store, this.facts, this.preparer, children, (queue, id) =>
      this.jobQueue(id, queue),
    );
  }

  /**
   * Sends an event to a running or parked pipeline job; events are taken in the order sent.
   * A parked job wakes to take it. Refused with JOB_NOT_FOUND / JOB_FINISHED for an unknown or
   * finished job; an event its current state does not accept is logged and ignored.
   * `to` delivers it to a child actor instead of the root: the id path of an invoked or spawned
   * child from the root, ids separated by '/'. An event no state takes is dropped (as XState
   * does); with `until: 'accepted'` it is kept until a state takes it, or `ttlMs` passes.
   * @example await client.send(id, { type: 'APPROVE', by: 'ana' });
   * @example await client.send(id, { type: 'GO' }, { until: 'accepted', ttlMs: 60_000 });
   * @example await client.send(id, { type: 'SIGN' }, { to: 'review/signature' });
   */
  async send(
    id: string,
    event: { type: string; [key: string]: unknown },
    options: SendOptions = {},
  ): Promise<void> {
    const delivery = validateSend(id, event, options);
    // An expiry is on Redis's clock, as every stored time: read with the job, not after it.
    const [job, now] = await Promise.all([
      this.findJob(id, options.queue),
      options.ttlMs === undefined ? undefined : this.store.now(),
    ]);
    if (!job) throw new JobNotFoundError(id, options.queue);
    const expiresAt = now === undefined ? undefined : now + options.ttlMs!;
    const text = serializeInput(
      `event ${event.type}`,
      encodeInboxEvent(event, { ...delivery, expiresAt }),
      this.maxPayloadBytes,
      'event',
    );
    // The id makes the send idempotent: a resend (by ioredis after a reconnect, or by the caller
    // with the same eventId) is taken once.
    await this.store.send(id, job.queue, text, event.type, options.eventId ?? ulid());
  }

  /** The job's audit log, oldest first. */
  events(id: string, options: { queue?: string } = {}): Promise<AuditEntry[]> {
    return this.jobQueue(id, options.queue).then((q) => this.store.getLog(id, q));
  }

  /**
   * A page of the queue's jobs. A partitioned queue is listed as one: its own name's jobs, then
   * each partition's in turn (the cursor, `<part>/<cursor>`, says where the next page starts).
   */
  list(query: Partial<ListQuery> = {}): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    return this.partitioned.list(query);
  }

  deadLetters(options: { queue?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    return this.store.deadLetters(options.queue ?? this.defaultQueue, options.limit ?? 100);
  }

  retryDeadLetter(id: string, options: { queue?: string } = {}): Promise<void> {
    return this.jobQueue(id, options.queue).then((q) => this.store.retryDeadLetter(id, q));
  }

  /**
   * Takes an empty queue off the list of queues (`machinist stats`, dashboards): the purge path
   * of the queue set, whose names otherwise stay once used. Refused with QUEUE_NOT_EMPTY while
   * the queue holds any job, finished ones and dead letters included (they expire or are purged
   * first). A supervisor that serves the queue lists it again at its next registry refresh.
   */
  async forgetQueue(queue: string): Promise<void> {
    assertQueueName(queue);
    const counts = await this.store.counts(queue);
    const held = Object.entries(counts).filter(([, n]) => n > 0);
    if (held.length > 0)
      throw new MachinistError(
        CODE.QUEUE_NOT_EMPTY,
        `queue '${queue}' still holds jobs (${held.map(([k, n]) => `${k} ${n}`).join(', ')})`,
        { queue },
      );
    await this.store.forgetQueue(queue);
  }

  purgeDeadLetters(options: { queue?: string } = {}): Promise<number> {
    return this.store.purgeDeadLetters(options.queue ?? this.defaultQueue);
  }

  /**
   * Purges one dead letter (or broken job): its record then expires like a finished job's.
   * Resolves false when the job is neither; rejects with JOB_NOT_FOUND when no queue holds it.
   */
  purgeDeadLetter(id: string, options: { queue?: string } = {}): Promise<boolean> {
    return this.jobQueue(id, options.queue).then((q) => this.store.purgeDeadLetter(id, q));
  }

  broken(options: { queue?: string; limit?: number } = {}): Promise<BrokenEntry[]> {
    return this.store.broken(options.queue ?? this.defaultQueue, options.limit ?? 100);
  }

  /**
   * Pauses `queue` (all its partitions): supervisors claim nothing from it, running jobs finish,
   * enqueues are accepted and wait (docs/flow-control.md).
   * @example await client.pauseQueue('emails');
   */
  pauseQueue(queue: string): Promise<void> {
    return this.controls.pause(queue);
  }

  /** Resumes a paused queue and wakes its idle supervisors. @example await client.resumeQueue('emails'); */
  resumeQueue(queue: string): Promise<void> {
    return this.controls.resume(queue);
  }

  /**
   * Sets `queue`'s limits at run time, no deploy: `total` running jobs, and `perKey` running jobs
   * per concurrency key (the enqueue's `concurrencyKey`); `null` clears one.
   * @example await client.setQueueLimits('render', { concurrency: { perKey: 2, total: 50 } });
   */
  setQueueLimits(queue: string, limits: QueueLimitsChange): Promise<void> {
    return this.controls.setLimits(queue, limits);
  }

  /** Pauses one concurrency key of `queue`: its jobs wait, the others run. @example await client.pauseKey('render', 'tenant-a'); */
  pauseKey(queue: string, key: string): Promise<void> {
    return this.controls.pauseKey(queue, key);
  }

  /** Resumes a paused key. @example await client.resumeKey('render', 'tenant-a'); */
  resumeKey(queue: string, key: string): Promise<void> {
    return this.controls.resumeKey(queue, key);
  }

  /** `queue`'s pause, limits, running jobs, and running and waiting jobs per key. */
  queueLimits(queue: string): Promise<QueueLimitsView> {
    return this.controls.limits(queue);
  }

  close(): void {
    this.waiters.close();
  }
}
