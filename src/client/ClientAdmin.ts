// The Client's operator methods: schedules (docs/schedules.md), queues (pause, limits,
// partitions, forgetting one; docs/flow-control.md, docs/partitions.md) and dead letters.
// One-line delegations to ScheduleClient, QueueControls, PartitionedQueues and the store, in a
// base class of Client (under ClientEnqueue.ts, the enqueue family) so that Client.ts holds the
// job methods and `client.schedule(...)`, `client.pauseQueue(...)` stay where users call them.

import { MachinistError } from '../errors.js';
import { CODE } from '../errorCodes.js';
import { assertQueueName } from '../store/keys.js';
import type { BrokenEntry, DeadLetter, Store } from '../store/types.js';
import type { MachineFactsLookup } from './MachineFactsLookup.js';
import { PartitionedQueues } from './PartitionedQueues.js';
import { QueueControls, type QueueLimitsChange, type QueueLimitsView } from './QueueControls.js';
import { ScheduleClient, type ScheduleInfo } from './schedules/ScheduleClient.js';
import type { OverlapPolicy, ScheduleOptions, TimeInput } from './schedules/scheduleSpec.js';

/** What the operator methods work on, built by the Client's constructor. */
export interface ClientParts {
  store: Store;
  facts: MachineFactsLookup;
  defaultQueue: string;
  maxPayloadBytes: number;
}

export abstract class ClientAdmin {
  readonly store: Store;
  protected readonly defaultQueue: string;
  protected readonly maxPayloadBytes: number;
  protected readonly facts: MachineFactsLookup;
  /** Where a job of a partitioned queue is stored (docs/partitions.md). */
  protected readonly partitioned: PartitionedQueues;
  /** Pause, resume and the limits of queues (docs/flow-control.md). */
  private readonly controls: QueueControls;
  /** The schedule methods' logic (schedules/ScheduleClient.ts). */
  private readonly scheduling: ScheduleClient;

  protected constructor(parts: ClientParts) {
    this.store = parts.store;
    this.facts = parts.facts;
    this.defaultQueue = parts.defaultQueue;
    assertQueueName(this.defaultQueue);
    this.maxPayloadBytes = parts.maxPayloadBytes;
    this.partitioned = new PartitionedQueues(this.store, this.defaultQueue);
    this.controls = new QueueControls(this.store, this.partitioned.router);
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
   * per concurrency key (the enqueue's `concurrencyKey`), the throttles of the queue, of each key
   * and of each machine (`machines: { <m>: { rateLimit } }`); `null` clears one, a field left out
   * is kept (docs/flow-control.md).
   * @example await client.setQueueLimits('render', { concurrency: { perKey: 2, total: 50 } });
   * @example await client.setQueueLimits('payments', { machines: { charge: { rateLimit: { limit: 20, perMs: 1000 } } } });
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

  // Dead letters: failed jobs kept whole, and records the store could not read (docs/guide.md).

  deadLetters(options: { queue?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    return this.store.deadLetters(options.queue ?? this.defaultQueue, options.limit ?? 100);
  }

  retryDeadLetter(id: string, options: { queue?: string } = {}): Promise<void> {
    return this.partitioned.storedQueue(id, options.queue).then((q) => this.store.retryDeadLetter(id, q));
  }

  purgeDeadLetters(options: { queue?: string } = {}): Promise<number> {
    return this.store.purgeDeadLetters(options.queue ?? this.defaultQueue);
  }

  /**
   * Purges one dead letter (or broken job): its record then expires like a finished job's.
   * Resolves false when the job is neither; rejects with JOB_NOT_FOUND when no queue holds it.
   */
  purgeDeadLetter(id: string, options: { queue?: string } = {}): Promise<boolean> {
    return this.partitioned.storedQueue(id, options.queue).then((q) => this.store.purgeDeadLetter(id, q));
  }

  broken(options: { queue?: string; limit?: number } = {}): Promise<BrokenEntry[]> {
    return this.store.broken(options.queue ?? this.defaultQueue, options.limit ?? 100);
  }
}
