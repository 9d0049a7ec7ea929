// Client's enqueue methods, in a base class of it: one job or many, waited for or not, and the path
// each takes (prepared, then batched or written with its watchers), so Client.ts keeps the rest.

import { ValidationError, ofBatchItem } from '../errors.js';
import type { AnyDefinition } from '../runtime/registry.js';
import type { EnqueueResult, JobRecord, NewJob } from '../store/types.js';
import type { EnqueueOptions } from './validateEnqueue.js';
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
import type { PublishSpan } from '../tracing/publishSpan.js';
import { machineName } from './MachineFactsLookup.js';
import { JobPreparer, endPublish, type Prepared } from './JobPreparer.js';
import { EnqueueBatcher } from './EnqueueBatcher.js';
import { ResultWaiters, type WaitOptions, type WatchedBatch } from './ResultWaiters.js';
import { ClientAdmin, type ClientParts } from './ClientAdmin.js';
import type { EnqueueInfo, EnqueueInfosOf, EnqueueWaitInfo, EnqueueWaitInfosOf } from './clientOptions.js';

export abstract class ClientEnqueue<D extends AnyDefinition> extends ClientAdmin {
  /** Builds and checks each job, and starts its publish span (JobPreparer.ts). */
  protected readonly preparer: JobPreparer;
  private readonly batcher: EnqueueBatcher;
  /** The waits on jobs' ends, one watcher per queue (ResultWaiters.ts). */
  protected readonly waiters: ResultWaiters;

  /** `tracing`: ClientOptions.tracing (default true). */
  protected constructor(parts: ClientParts, tracing: boolean) {
    super(parts);
    this.preparer = new JobPreparer(tracing, {
      queue: this.defaultQueue,
      maxPayloadBytes: this.maxPayloadBytes,
    });
    this.batcher = new EnqueueBatcher(this.store);
    this.waiters = new ResultWaiters(this.store, (id, queue) => this.jobQueue(id, queue));
  }

  /** The stored queue of job `id` named with `queue` (undefined: the store looks in every queue). */
  protected jobQueue(id: string, queue: string | undefined): Promise<string | undefined> {
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
   * like `enqueue`'s arguments; the ids come back in order. A refused item rejects the call
   * before anything is written, with an error naming it (`index`, and `item <n>: ` in its message).
   */
  async enqueueMany<const Refs extends readonly JobRef<D>[]>(
    items: EnqueueItems<D, Refs>,
  ): Promise<JobIdsOf<D, Refs>>;
  async enqueueMany(items: readonly EnqueueItem[]): Promise<string[]> {
    return (await this.enqueueManyStored('enqueueMany', items)).map((r) => r.id);
  }

  /**
   * `enqueueMany`, answering `enqueueWithInfo`'s answer for each job, in item order: its id, and
   * `deduplicated: true` when a dedupe or idempotency key kept an existing job (the HTTP
   * `POST /jobs/batch` answers it per job).
   * @example const infos = await client.enqueueManyWithInfo([{ machine: 'reindex', input: { doc }, options: { dedupe: { key: doc } } }]);
   */
  async enqueueManyWithInfo<const Refs extends readonly JobRef<D>[]>(
    items: EnqueueItems<D, Refs>,
  ): Promise<EnqueueInfosOf<D, Refs>>;
  async enqueueManyWithInfo(items: readonly EnqueueItem[]): Promise<EnqueueInfo<string>[]> {
    return (await this.enqueueManyStored('enqueueManyWithInfo', items)).map((r) => ({
      id: r.id,
      deduplicated: r.deduplicated === true,
    }));
  }

  /** A batch prepared, then written in one store call per queue: the store's answers in item order. */
  private async enqueueManyStored(method: string, items: readonly EnqueueItem[]): Promise<EnqueueResult[]> {
    const { prepared, spans } = await this.prepareMany(method, items);
    const byQueue = new Map<string, { index: number; job: NewJob }[]>();
    prepared.forEach((p, index) => {
      const list = byQueue.get(p.queue);
      if (list) list.push({ index, job: p.job });
      else byQueue.set(p.queue, [{ index, job: p.job }]);
    });
    const stored: EnqueueResult[] = new Array(items.length);
    const written = Promise.all(
      [...byQueue.entries()].map(async ([queue, list]) => {
        const res = await this.store.enqueue(
          queue,
          list.map((l) => l.job),
        );
        res.forEach((r, k) => (stored[list[k]!.index] = r));
      }),
    );
    await (spans.length > 0 ? endPublish(written, ...spans) : written);
    return stored;
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

  /**
   * Items built and checked, in order, before any is written: a refused one writes none, and its
   * error names it (ofBatchItem).
   */
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
      let p: Prepared;
      try {
        p = await this.prepareOne(machineName(item.machine), item.input, item.options);
      } catch (err) {
        throw ofBatchItem(err, index);
      }
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
}
