// The client: enqueue jobs, look at them, wait for their results, cancel them. Built with `jobs`,
// it is typed by them (jobTypes.ts): names, inputs and outputs are checked at compile time.

import { monotonicFactory } from 'ulid';
import { JobNotFoundError, ValidationError } from '../errors.js';
import { Registry, type AnyDefinition } from '../runtime/registry.js';
import type { AuditEntry, EnqueueResult, JobRecord, ListQuery, NewJob } from '../store/types.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, serializeInput, type EnqueueOptions } from './validateEnqueue.js';
import type { ChildJob } from '../runtime/AttemptHost.js';
import type {
  EnqueueArgs,
  EnqueueItem,
  EnqueueItems,
  InputFor,
  JobId,
  JobIdsOf,
  JobRecordsOf,
  JobRef,
  OutputFor,
} from './jobTypes.js';
import { encodeInboxEvent } from '../runtime/inboxEvent.js';
import { validateSend, type SendOptions } from './validateSend.js';
import type { PublishSpan } from '../tracing/publishSpan.js';
import { MachineFactsLookup, machineName } from './MachineFactsLookup.js';
import { JobPreparer, endPublish, type Prepared } from './JobPreparer.js';
import { EnqueueBatcher } from './EnqueueBatcher.js';
import { ResultWaiters, type WaitOptions, type WatchedBatch } from './ResultWaiters.js';
import { ClientAdmin } from './ClientAdmin.js';
import type { ClientOptions, EnqueueInfo, EnqueueWaitInfo, EnqueueWaitInfosOf } from './clientOptions.js';
import { cancelDescendants } from './cancelDescendants.js';
import { enqueueChildren } from './enqueueChildren.js';

export type { SendOptions } from './validateSend.js';
export type { WaitOptions } from './ResultWaiters.js';

export type { ClientOptions, EnqueueInfo, EnqueueWaitInfo, EnqueueWaitInfosOf } from './clientOptions.js';

const ulid = monotonicFactory();

/**
 * Enqueues jobs and reads them. `D` is the union of the definitions in `jobs` (inferred), or
 * `never` for a client built without them, which takes any name and input.
 * @example
 * const client = new Client({ store, jobs: [resize] });
 * const id = await client.enqueue('resize', { url, width: 640 }); // input checked against resize's
 * const job = await client.waitForResult(id); // job.output: resize's output | null
 */
export class Client<D extends AnyDefinition = never> extends ClientAdmin {
  private readonly preparer: JobPreparer;
  private readonly batcher: EnqueueBatcher;
  private readonly waiters: ResultWaiters;

  constructor(options: ClientOptions<D>) {
    if (!options?.store) throw new TypeError('Client: store is required');
    const local = options.jobs ? new Registry(options.jobs) : undefined;
    super({
      store: options.store,
      facts: new MachineFactsLookup(options.store, local, options.inputSchemasFrom),
      defaultQueue: options.queue ?? 'default',
      maxPayloadBytes: options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES,
    });
    this.preparer = new JobPreparer(options.tracing ?? true, {
      queue: this.defaultQueue,
      maxPayloadBytes: this.maxPayloadBytes,
    });
    this.batcher = new EnqueueBatcher(this.store);
    this.waiters = new ResultWaiters(this.store, (id, queue) => this.jobQueue(id, queue));
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
    return (await this.enqueueOne(machine, input, options)).id;
  }

  /**
   * `enqueue`, answering what the store did as well as the id: `deduplicated: true` when a dedupe
   * key (or an idempotency key) kept an existing job, whose id this is (docs/dedupe.md). A method
   * of its own, not an option, so that `enqueue`'s return type never depends on a flag.
   * @example const { id, deduplicated } = await client.enqueueWithInfo('reindex', { doc }, { dedupe: { key: doc } });
   */
  async enqueueWithInfo<Ref extends JobRef<D>>(
    machine: Ref,
    ...args: EnqueueArgs<InputFor<D, Ref>>
  ): Promise<EnqueueInfo<JobId<OutputFor<D, Ref>>>>;
  async enqueueWithInfo(
    machine: string | AnyDefinition,
    input?: unknown,
    options?: EnqueueOptions,
  ): Promise<EnqueueInfo<string>> {
    const r = await this.enqueueOne(machine, input, options);
    return { id: r.id, deduplicated: r.deduplicated === true };
  }

  /**
   * Enqueues one job and waits for it to end: resolves with its final record (done, failed or
   * cancelled). Unlike `enqueue` then `waitForResult`, the job is made with this client's watch
   * on it, in the one atomic step that stores it, so no end can come between the two: the way to
   * wait for a job with a minimal record (`record: 'minimal'`), which is deleted as it ends done.
   * A job a dedupe or idempotency key keeps instead is waited for (its record, when it has
   * finished; JOB_NOT_FOUND when a minimal one is gone already). Rejects with a TimeoutError
   * naming the job (`jobId`) after `wait.timeoutMs` (default 30 s), or with `wait.signal`'s
   * reason; the job is stored either way. Enqueues of one tick are still sent together.
   * @example const job = await client.enqueueAndWait('resize', { url }, { record: 'minimal' }, { timeoutMs: 10_000 });
   */
  async enqueueAndWait<Ref extends JobRef<D>>(
    machine: Ref,
    input: InputFor<D, Ref>,
    options?: EnqueueOptions,
    wait?: WaitOptions,
  ): Promise<JobRecord<OutputFor<D, Ref>>>;
  async enqueueAndWait(
    machine: string | AnyDefinition,
    input: unknown,
    options?: EnqueueOptions,
    wait?: WaitOptions,
  ): Promise<JobRecord> {
    return (await this.enqueueWatched(machine, input, options, wait)).result;
  }

  /**
   * `enqueueAndWait`, answering as soon as the job is stored, with `enqueueWithInfo`'s answer
   * and the wait as a promise (`result`): for a caller that needs the id while it waits (the
   * HTTP `POST /jobs?wait=` answers 202 with it when the wait passes).
   * @example const { id, result } = await client.enqueueAndWaitWithInfo('resize', { url }, {}, { timeoutMs: 5000 });
   */
  async enqueueAndWaitWithInfo<Ref extends JobRef<D>>(
    machine: Ref,
    input: InputFor<D, Ref>,
    options?: EnqueueOptions,
    wait?: WaitOptions,
  ): Promise<EnqueueWaitInfo<OutputFor<D, Ref>>>;
  async enqueueAndWaitWithInfo(
    machine: string | AnyDefinition,
    input: unknown,
    options?: EnqueueOptions,
    wait?: WaitOptions,
  ): Promise<EnqueueWaitInfo> {
    return this.enqueueWatched(machine, input, options, wait);
  }

  /** One job through this tick's batch, made with the queue's watcher on it (ResultWaiters). */
  private async enqueueWatched(
    machine: string | AnyDefinition,
    input: unknown,
    options: EnqueueOptions | undefined,
    wait: WaitOptions | undefined,
  ): Promise<EnqueueWaitInfo> {
    const p = await this.prepareOne(machineName(machine), input, options);
    const { stored, result } = await this.waiters.enqueueAndWait(
      p.queue,
      p.job,
      (job) => this.addToBatch(p.queue, job, p.publish),
      wait ?? {},
    );
    return { id: stored.id as JobId, deduplicated: stored.deduplicated === true, result };
  }

  /** One job through this tick's batch (EnqueueBatcher): the store's answer for it. */
  private async enqueueOne(
    machine: string | AnyDefinition,
    input: unknown,
    options: EnqueueOptions | undefined,
  ): Promise<EnqueueResult> {
    // Calls made in one tick still batch: prepareOne awaits nothing once the machine and the
    // queue's partition count are known (and the input schema is synchronous).
    const p = await this.prepareOne(machineName(machine), input, options);
    return this.addToBatch(p.queue, p.job, p.publish);
  }

  /** `job` into this tick's batch for `queue`; its `publish` ends once the store has it. */
  private addToBatch(queue: string, job: NewJob, publish: PublishSpan | undefined): Promise<EnqueueResult> {
    const written = this.batcher.add(queue, job);
    return publish ? endPublish(written, publish) : written;
  }

  /**
   * Enqueues many jobs: one round trip per queue, all-or-nothing per queue. Each item is typed
   * like `enqueue`'s arguments; the ids come back in order.
   */
  async enqueueMany<const Refs extends readonly JobRef<D>[]>(
    items: EnqueueItems<D, Refs>,
  ): Promise<JobIdsOf<D, Refs>>;
  async enqueueMany(items: readonly EnqueueItem[]): Promise<string[]> {
    const { prepared, spans } = await this.prepareMany('enqueueMany', items);
    const byQueue = new Map<string, { index: number; job: NewJob }[]>();
    prepared.forEach((p, index) => {
      const list = byQueue.get(p.queue);
      if (list) list.push({ index, job: p.job });
      else byQueue.set(p.queue, [{ index, job: p.job }]);
    });
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
   * `enqueueMany` and `enqueueAndWait` in one: every job is made with this client's watch on it
   * in the one atomic step per queue that stores the batch (as `enqueueAndWait` makes its one
   * job), so a minimal job (`record: 'minimal'`) that ends at once is still delivered, where
   * `enqueueMany` then `waitForResult` on each can find it gone (JOB_NOT_FOUND). Resolves with
   * every job's final record, in item order, typed by each job's output.
   *
   * A job that ends failed or cancelled is an answer, not an error: its record (`status`, `error`)
   * is in its place, as `enqueueAndWait` resolves with it, so one failed job neither hides the
   * others' outputs nor leaves them unread. (BullMQ's `waitUntilFinished` and Temporal's
   * `result()` throw for a failed job; Machinist's waits answer its record, and the batch keeps
   * to that rather than reject with the failed ids and lose the rest.) The call rejects, with the first error, only where
   * `enqueueAndWait` would for one of its jobs: a refused item (ValidationError, nothing written,
   * as `enqueueMany`), a store error, a kept minimal job gone already (JOB_NOT_FOUND: a dedupe or
   * idempotency key kept it, as `enqueueAndWait` says), `wait.signal`'s reason, or the bound:
   * `wait.timeoutMs` (default 30 s) from when the whole batch is stored, then one TimeoutError
   * naming every job not finished (`jobIds`, in item order; `jobId` the first). The jobs are
   * stored either way, and the waits still open end with the call. For each job's end apart
   * (Promise.allSettled), see `enqueueManyAndWaitWithInfo`.
   * @example
   * const [a, b] = await client.enqueueManyAndWait(
   *   [{ machine: 'resize', input: { url: u1 } }, { machine: 'resize', input: { url: u2 } }],
   *   { timeoutMs: 10_000 },
   * );
   * if (a.status === 'done') use(a.output);
   */
  async enqueueManyAndWait<const Refs extends readonly JobRef<D>[]>(
    items: EnqueueItems<D, Refs>,
    wait?: WaitOptions,
  ): Promise<JobRecordsOf<D, Refs>>;
  async enqueueManyAndWait(items: readonly EnqueueItem[], wait?: WaitOptions): Promise<JobRecord[]> {
    return (await this.enqueueManyWatched('enqueueManyAndWait', items, wait)).all();
  }

  /**
   * `enqueueManyAndWait`, answering as soon as every job is stored, with each job's
   * `enqueueAndWaitWithInfo` answer in item order: `{ id, deduplicated, result }`, each `result`
   * settling as `enqueueAndWait` would for that job alone (at the bound, a TimeoutError naming
   * it). For a caller that wants the ids while it waits, or each job's end apart.
   * @example
   * const jobs = await client.enqueueManyAndWaitWithInfo(items, { timeoutMs: 5000 });
   * const ends = await Promise.allSettled(jobs.map((j) => j.result));
   */
  async enqueueManyAndWaitWithInfo<const Refs extends readonly JobRef<D>[]>(
    items: EnqueueItems<D, Refs>,
    wait?: WaitOptions,
  ): Promise<EnqueueWaitInfosOf<D, Refs>>;
  async enqueueManyAndWaitWithInfo(
    items: readonly EnqueueItem[],
    wait?: WaitOptions,
  ): Promise<EnqueueWaitInfo[]> {
    const batch = await this.enqueueManyWatched('enqueueManyAndWaitWithInfo', items, wait);
    return batch.stored.map((s, i) => ({
      id: s.id as JobId,
      deduplicated: s.deduplicated === true,
      result: batch.results[i]!,
    }));
  }

  /** Items built and checked, in order, before any is written: a refused one writes none. */
  private async prepareMany(
    method: string,
    items: readonly EnqueueItem[],
  ): Promise<{ prepared: Prepared[]; spans: PublishSpan[] }> {
    if (!Array.isArray(items))
      throw new ValidationError(`${method} takes an array of { machine, input, options }`, {
        field: 'items',
      });
    const prepared: Prepared[] = [];
    const spans: PublishSpan[] = [];
    for (let index = 0; index < items.length; index++) {
      const item = items[index] as EnqueueItem | undefined;
      if (!item || typeof item !== 'object')
        throw new ValidationError(`item ${index} must be an object`, { field: `items[${index}]` });
      const p = await this.prepareOne(machineName(item.machine), item.input, item.options);
      if (p.publish) spans.push(p.publish);
      prepared.push(p);
    }
    return { prepared, spans };
  }

  /** A batch written with the queues' watchers on its jobs, one store call per queue (ResultWaiters). */
  private async enqueueManyWatched(
    method: string,
    items: readonly EnqueueItem[],
    wait: WaitOptions | undefined,
  ): Promise<WatchedBatch> {
    const { prepared, spans } = await this.prepareMany(method, items);
    const batch = this.waiters.enqueueManyAndWait(
      prepared.map((p) => ({ queue: p.queue, job: p.job })),
      (queue, jobs) => this.store.enqueue(queue, jobs),
      wait ?? {},
    );
    return spans.length > 0 ? endPublish(batch, ...spans) : batch;
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

  close(): void {
    this.waiters.close();
  }
}
