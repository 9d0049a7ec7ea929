// The client: enqueue jobs, look at them, wait for their results, cancel them. Built with `jobs`,
// it is typed by them (jobTypes.ts): names, inputs and outputs are checked at compile time.

import { monotonicFactory } from 'ulid';
import {
  JobNotFoundError,
  MachinistError,
  TimeoutError,
  UnknownMachineError,
  ValidationError,
} from '../errors.js';
import { Registry, type AnyDefinition } from '../runtime/registry.js';
import {
  FINISHED,
  type AuditEntry,
  type BrokenEntry,
  type DeadLetter,
  type JobRecord,
  type ListQuery,
  type MachineInfo,
  type NewJob,
  type Store,
} from '../store/types.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, serializeInput, type EnqueueOptions } from './validateEnqueue.js';
import { buildNewJob, type BuiltJob, type MachineFacts } from './buildNewJob.js';
import type { InputSchema } from '../runtime/checkInput.js';
import { ResultWaiter } from './ResultWaiter.js';
import { DEFAULT_MAX_ATTEMPTS } from '../runtime/backoff.js';
import { assertQueueName, childId } from '../store/keys.js';
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
import { loadOtel, otelLoaded } from '../tracing/otel.js';
import type { Context } from '@opentelemetry/api';
import { startPublishSpan, type PublishSpan } from '../tracing/publishSpan.js';
import { CODE } from '../errorCodes.js';

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
const REGISTRY_TTL_MS = 2000;
/** Most jobs one auto-batched enqueue call carries. */
const ENQUEUE_CHUNK = 1000;

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
  private readonly local: Registry | undefined;
  private readonly schemasFrom: Registry | undefined;
  private readonly defaultQueue: string;
  private readonly maxPayloadBytes: number;
  private remote: { at: number; byName: Map<string, MachineInfo> } | undefined;
  private readonly waiters = new Map<string, ResultWaiter>();
  private readonly tracing: boolean;

  constructor(options: ClientOptions<D>) {
    if (!options?.store) throw new TypeError('Client: store is required');
    this.store = options.store;
    this.local = options.jobs ? new Registry(options.jobs) : undefined;
    this.schemasFrom = options.inputSchemasFrom;
    this.defaultQueue = options.queue ?? 'default';
    assertQueueName(this.defaultQueue);
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    this.tracing = options.tracing ?? true;
    if (this.tracing) void loadOtel();
  }

  /**
   * The optional tracing API's first load, while it is under way (once per process); undefined
   * once it is done, so an enqueue waits for nothing (not even a microtask) after that.
   */
  private tracingLoad(): Promise<unknown> | undefined {
    return this.tracing && otelLoaded() === undefined ? loadOtel() : undefined;
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
    const name = machineName(machine);
    const loading = this.tracingLoad();
    if (loading) await loading;
    const m = this.machineInfo(name);
    const prepared = this.prepare(name, input, options, m instanceof Promise ? await m : m);
    // Awaited only when it is a Promise (an async input schema): calls made in one tick still batch.
    const p = prepared instanceof Promise ? await prepared : prepared;
    const written = new Promise<string>((resolve, reject) => {
      let b = this.autoBatch;
      if (!b) {
        b = this.autoBatch = [];
        // nextTick runs after the promise continuations already queued: concurrent callers join.
        process.nextTick(() => this.flushAutoBatch());
      }
      b.push({ queue: p.queue, job: p.job, resolve, reject });
    });
    return p.publish ? endPublish(written, p.publish) : written;
  }

  private autoBatch:
    { queue: string; job: NewJob; resolve: (id: string) => void; reject: (e: unknown) => void }[] | undefined;

  private flushAutoBatch(): void {
    const all = this.autoBatch ?? [];
    this.autoBatch = undefined;
    const byQueue = new Map<string, typeof all>();
    for (const e of all) {
      const list = byQueue.get(e.queue);
      if (list) list.push(e);
      else byQueue.set(e.queue, [e]);
    }
    for (const [queue, list] of byQueue) {
      for (let start = 0; start < list.length; start += ENQUEUE_CHUNK) {
        const part = list.slice(start, start + ENQUEUE_CHUNK);
        this.store
          .enqueue(
            queue,
            part.map((e) => e.job),
          )
          .then(
            (res) => res.forEach((r, k) => part[k]!.resolve(r.id)),
            (err: unknown) => part.forEach((e) => e.reject(err)),
          );
      }
    }
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
      const loading = this.tracingLoad();
      if (loading) await loading;
      // Resolved without a microtask when the machine is known locally (or cached).
      const name = machineName(item.machine);
      const m = this.machineInfo(name);
      const prepared = this.prepare(name, item.input, item.options, m instanceof Promise ? await m : m);
      const p = prepared instanceof Promise ? await prepared : prepared;
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
   * One job built (buildNewJob: every check); a Promise only when its input schema is async.
   * `child`: a fan-out child's fixed id and its parent attempt's trace context.
   */
  private prepare(
    machine: string,
    input: unknown,
    options: EnqueueOptions | undefined,
    info: MachineFacts,
    child?: { id: string; trace: unknown },
  ): Prepared | Promise<Prepared> {
    // Loaded by tracingLoad() before any prepare; undefined/null: no tracing here.
    const api = this.tracing ? otelLoaded() : undefined;
    let publish: PublishSpan | undefined;
    const built = buildNewJob(
      machine,
      input,
      options,
      info,
      { queue: this.defaultQueue, maxPayloadBytes: this.maxPayloadBytes },
      api
        ? (queue, id) =>
            (publish = startPublishSpan(api, queue, id, machine, child?.trace as Context | undefined))
              ?.traceparent
        : undefined,
      child?.id,
    );
    const withSpan = (b: BuiltJob): Prepared => (publish ? { ...b, publish } : b);
    return built instanceof Promise ? built.then(withSpan) : withSpan(built);
  }

  /**
   * The machine's newest version, default maxAttempts and input schema (when its definition is
   * known here); synchronous when known locally or cached.
   */
  private machineInfo(machine: string): MachineFacts | Promise<MachineFacts> {
    if (typeof machine !== 'string' || machine.length === 0)
      throw new ValidationError('machine must be a non-empty string', { field: 'machine' });
    if (this.local) {
      const def = this.local.latest(machine);
      if (!def) throw new UnknownMachineError(machine, { field: 'machine' });
      return factsOf(def);
    }
    const info =
      this.remote && Date.now() - this.remote.at < REGISTRY_TTL_MS
        ? this.remote.byName.get(machine)
        : undefined;
    if (info)
      return this.withSchema(machine, {
        version: Math.max(...info.versions),
        maxAttempts: info.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      });
    return this.versionOf(machine).then((version) =>
      this.withSchema(machine, { version, maxAttempts: this.maxAttemptsOf(machine) }),
    );
  }

  /** The registry's facts, with the input schema of that version when inputSchemasFrom has it. */
  private withSchema(machine: string, facts: MachineFacts): MachineFacts {
    const def = this.schemasFrom?.get(machine, facts.version);
    return def?.input ? { ...facts, input: def.input } : facts;
  }

  private async versionOf(machine: string): Promise<number> {
    let info =
      this.remote && Date.now() - this.remote.at < REGISTRY_TTL_MS
        ? this.remote.byName.get(machine)
        : undefined;
    if (!info) {
      const all = await this.store.machines();
      this.remote = { at: Date.now(), byName: new Map(all.map((m) => [m.name, m])) };
      info = this.remote.byName.get(machine);
    }
    if (!info) throw new UnknownMachineError(machine, { field: 'machine' });
    return Math.max(...info.versions);
  }

  private maxAttemptsOf(machine: string): number {
    // Without local definitions, the registry that supervisors publish carries it (read by versionOf).
    return this.remote?.byName.get(machine)?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  }

  /**
   * The job's record, or null when there is none (never existed, or expired). Given an id from
   * a typed enqueue, `output` has that job's output type.
   */
  async get<Output = unknown>(
    id: JobId<Output> | string,
    options: { queue?: string } = {},
  ): Promise<JobRecord<Output> | null> {
    const job = (await this.store.getJob(id, options.queue)) as JobRecord<Output> | null;
    if (!job) return null;
    const groups = await this.store.fanGroups(job.queue, id);
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
    return (await this.waitFor(id, options)) as JobRecord<Output>;
  }

  private async waitFor(
    id: string,
    options: { timeoutMs?: number; queue?: string; signal?: AbortSignal },
  ): Promise<JobRecord> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    options.signal?.throwIfAborted();
    let queue = options.queue;
    if (!queue) {
      // Which queue holds it. The waiter reads the record again after it has registered (see
      // ResultWaiter): with the queue given, that read is the only one before blocking.
      const job = await this.store.getJob(id);
      if (!job) throw new JobNotFoundError(id);
      if (FINISHED.has(job.status)) return job;
      queue = job.queue;
    }
    let waiter = this.waiters.get(queue);
    if (!waiter) this.waiters.set(queue, (waiter = new ResultWaiter(this.store, queue)));
    const ac = new AbortController();
    const timer = setTimeout(
      () =>
        ac.abort(
          new TimeoutError(`job ${id} did not finish within ${timeoutMs} ms`, {
            jobId: id,
            queue,
          }),
        ),
      timeoutMs,
    );
    const outer = options.signal;
    const onOuterAbort = () => ac.abort(outer!.reason);
    if (outer?.aborted) onOuterAbort();
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      return await waiter.wait(id, ac.signal, () => new JobNotFoundError(id, queue));
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }

  /**
   * Cancels a job: at once when it is not running; a running job's signal fires within one
   * heartbeat and it ends `cancelled`. Resolves false when the job had already finished.
   */
  async cancel(id: string, options: { queue?: string } = {}): Promise<boolean> {
    const r = await this.store.cancel(id, options.queue);
    if (r.hasChildren) await this.cancelDescendants(id);
    return r.result !== 'finished';
  }

  /**
   * Cancels every descendant of a job, depth first. Each cancel is atomic; the walk is not, but
   * it converges: a child claimed meanwhile sees its parent cancelled and ends without running.
   */
  private async cancelDescendants(parentId: string): Promise<void> {
    const PAGE = 500;
    for (const queue of await this.store.queues()) {
      for (let offset = 0; ; offset += PAGE) {
        const ids = await this.store.childIds(queue, parentId, offset, PAGE);
        const outcomes = await Promise.all(
          ids.map((child) => this.store.cancel(child, queue, 'parent cancelled').catch(() => null)),
        );
        for (const [i, o] of outcomes.entries()) if (o?.hasChildren) await this.cancelDescendants(ids[i]!);
        if (ids.length < PAGE) break;
      }
    }
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
    // Bounded by batch size, not by a promise pool (p-limit): each chunk is one store call per
    // queue, and chunks go one after the other so that a parent's children are written in index
    // order and a failed chunk leaves none after it written.
    const CHUNK = 1000;
    for (let start = 0; start < jobs.length; start += CHUNK) {
      const byQueue = new Map<string, NewJob[]>();
      for (let index = start; index < Math.min(jobs.length, start + CHUNK); index++) {
        const spec = jobs[index]!;
        const m = this.machineInfo(spec.machine);
        const prepared = this.prepare(
          spec.machine,
          spec.input,
          { queue: spec.queue ?? parentQueue, priority: spec.priority },
          m instanceof Promise ? await m : m,
          // The child's id is fixed before its publish span starts: the span carries it.
          { id: childId(parentId, group, index), trace },
        );
        const { queue, job, publish } = prepared instanceof Promise ? await prepared : prepared;
        // The one place a job gets a parent (public enqueue options refuse parentId).
        job.parentId = parentId;
        job.parentQueue = queue === parentQueue ? '' : parentQueue;
        job.group = group;
        job.index = index;
        if (parentToken) job.parentToken = parentToken;
        if (revive?.has(index)) job.revive = true;
        // A child's publish span covers building it; its write is the parent's batch below.
        publish?.end();
        const list = byQueue.get(queue) ?? [];
        list.push(job);
        byQueue.set(queue, list);
      }
      await Promise.all([...byQueue.entries()].map(([queue, list]) => this.store.enqueue(queue, list)));
    }
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
      this.store.getJob(id, options.queue),
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
    await this.store.send(job.queue, id, text, event.type, options.eventId ?? ulid());
  }

  /** The job's audit log, oldest first. */
  events(id: string, options: { queue?: string } = {}): Promise<AuditEntry[]> {
    return this.store.getLog(id, options.queue);
  }

  list(query: Partial<ListQuery> = {}): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    return this.store.list({ ...query, queue: query.queue ?? this.defaultQueue });
  }

  deadLetters(options: { queue?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    return this.store.deadLetters(options.queue ?? this.defaultQueue, options.limit ?? 100);
  }

  retryDeadLetter(id: string, options: { queue?: string } = {}): Promise<void> {
    return this.store.retryDeadLetter(id, options.queue);
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
    return this.store.purgeDeadLetter(id, options.queue);
  }

  broken(options: { queue?: string; limit?: number } = {}): Promise<BrokenEntry[]> {
    return this.store.broken(options.queue ?? this.defaultQueue, options.limit ?? 100);
  }

  close(): void {
    for (const w of this.waiters.values()) w.close();
    this.waiters.clear();
  }
}

type Prepared = BuiltJob & { publish?: PublishSpan };

/** What a definition says of its jobs at enqueue: version, default maxAttempts, input schema. */
function factsOf(def: AnyDefinition): MachineFacts {
  const facts: MachineFacts = {
    version: def.version,
    maxAttempts: def.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
  };
  if (def.input) facts.input = def.input as InputSchema;
  return facts;
}

/** The name a job reference stands for: the string, or a definition's name. */
function machineName(machine: unknown): string {
  if (typeof machine === 'string') return machine;
  const name = (machine as { name?: unknown; runAttempt?: unknown } | null)?.name;
  if (typeof name === 'string' && typeof (machine as { runAttempt?: unknown }).runAttempt === 'function')
    return name;
  throw new ValidationError('machine must be a job name or a definition from defineJob/definePipeline', {
    field: 'machine',
  });
}

/** Ends publish spans once their write is answered (with its error, if it failed). */
async function endPublish<T>(written: Promise<T>, ...spans: PublishSpan[]): Promise<T> {
  try {
    const v = await written;
    for (const s of spans) s.end();
    return v;
  } catch (err) {
    for (const s of spans) s.end(err);
    throw err;
  }
}
