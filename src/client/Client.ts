// The client: enqueue jobs, look at them, wait for their results, cancel them. Built with `jobs`,
// it is typed by them (jobTypes.ts): names, inputs and outputs are checked at compile time.
// The enqueue methods are in its base ClientEnqueue.ts, the operator ones in ClientAdmin.ts.

import { ulidFactory } from '../runtime/ulids.js';
import { JobNotFoundError } from '../errors.js';
import { Registry, type AnyDefinition } from '../runtime/registry.js';
import type { AuditEntry, JobRecord, ListQuery } from '../store/types.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, serializeInput } from './validateEnqueue.js';
import type { ChildJob } from '../runtime/AttemptHost.js';
import type { JobId } from './jobTypes.js';
import { encodeInboxEvent } from '../runtime/inboxEvent.js';
import { validateSend, type SendOptions } from './validateSend.js';
import { MachineFactsLookup } from './MachineFactsLookup.js';
import { ClientEnqueue } from './ClientEnqueue.js';
import type { ClientOptions } from './clientOptions.js';
import { cancelDescendants } from './cancelDescendants.js';
import { enqueueChildren } from './enqueueChildren.js';

export type { SendOptions } from './validateSend.js';
export type { WaitOptions } from './ResultWaiters.js';

export type {
  ClientOptions,
  EnqueueInfo,
  EnqueueInfosOf,
  EnqueueWaitInfo,
  EnqueueWaitInfosOf,
} from './clientOptions.js';

const ulid = ulidFactory();

/**
 * Enqueues jobs and reads them. `D` is the union of the definitions in `jobs` (inferred), or
 * `never` for a client built without them, which takes any name and input.
 * @example
 * const client = new Client({ store, jobs: [resize] });
 * const id = await client.enqueue('resize', { url, width: 640 }); // input checked against resize's
 * const job = await client.waitForResult(id); // job.output: resize's output | null
 */
export class Client<D extends AnyDefinition = never> extends ClientEnqueue<D> {
  constructor(options: ClientOptions<D>) {
    if (!options?.store) throw new TypeError('Client: store is required');
    const local = options.jobs ? new Registry(options.jobs) : undefined;
    super(
      {
        store: options.store,
        facts: new MachineFactsLookup(options.store, local, options.inputSchemasFrom),
        defaultQueue: options.queue ?? 'default',
        maxPayloadBytes: options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES,
      },
      options.tracing ?? true,
    );
  }

  /** Job `id`, in the partition its id names (PartitionedQueues.findJob). */
  private findJob(id: string, queue: string | undefined): Promise<JobRecord | null> {
    return this.partitioned.findJob(id, queue);
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
    // No record is read first: the store's send refuses a job the queue does not hold
    // (JOB_NOT_FOUND) or one that finished (JOB_FINISHED) itself, in the same call. Without the
    // queue named, the store says which queue holds the job (queueOf: no field of its record,
    // which can be megabytes). An expiry is on Redis's clock, as every stored time: read with the
    // queue, not after it.
    const [queue, now] = await Promise.all([
      options.queue !== undefined
        ? this.jobQueue(id, options.queue)
        : this.store.queueOf(id).then((q) => q ?? undefined),
      options.ttlMs === undefined ? undefined : this.store.now(),
    ]);
    if (queue === undefined) throw new JobNotFoundError(id, options.queue);
    const expiresAt = now === undefined ? undefined : now + options.ttlMs!;
    const text = serializeInput(
      `event ${event.type}`,
      encodeInboxEvent(event, { ...delivery, expiresAt }),
      this.maxPayloadBytes,
      'event',
    );
    // The id makes the send idempotent: a resend (by ioredis after a reconnect, or by the caller
    // with the same eventId) is taken once, and answered as delivered even if the job has ended
    // meanwhile (a finished job keeps its sent events' ids).
    try {
      await this.store.send(id, queue, text, event.type, options.eventId ?? ulid());
    } catch (err) {
      // Named by the queue the caller named (a partitioned queue's job is in one of its partitions).
      if (err instanceof JobNotFoundError && options.queue !== undefined)
        throw new JobNotFoundError(id, options.queue);
      throw err;
    }
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
