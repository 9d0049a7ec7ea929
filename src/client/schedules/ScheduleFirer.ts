// Fires a schedule's ticks: applies its overlap policy (planTicks.ts), cancels the running job
// for cancelOther, enqueues one job per started tick under the tick's id (scheduledJobId.ts:
// EXACTLY ONE JOB PER TICK), and records what it did in the schedule's record. Used by the
// schedule loop (src/supervisor/ScheduleLoop.ts) and by the client's trigger and backfill, so a
// tick is fired the same way whoever fires it. Writing the record back (the compare-and-set)
// is the caller's: fire() only changes the record in memory.

import { FINISHED, type NewJob, type Store } from '../../store/types.js';
import { partitionOfKey, partitionQueue } from '../../store/partitions.js';
import { toError } from '../../errors.js';
import { buildNewJob } from '../buildNewJob.js';
import type { MachineFactsLookup } from '../MachineFactsLookup.js';
import type { MachineFacts } from '../buildNewJob.js';
import type { QueueRouter } from '../QueueRouter.js';
import { cancelDescendants } from '../cancelDescendants.js';
import { planTicks } from './planTicks.js';
import { noteAction, type HeldTick, type ScheduleRecord } from './scheduleRecord.js';
import type { OverlapPolicy, ScheduleSpec } from './scheduleSpec.js';
import { jitterOf, scheduledJobId } from './scheduledJobId.js';

/** What a firer logs (a pino logger fits). */
export interface FireLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface FireHost {
  store: Store;
  facts: MachineFactsLookup;
  router: QueueRouter;
  maxPayloadBytes: number;
  log?: FireLog;
}

/** Jobs per enqueue call (a backfill of many ticks goes in slices). */
export const ENQUEUE_SLICE = 500;

/**
 * Where fire() leaves the jobs it starts, by stored queue, when the caller enqueues them itself
 * (the schedule loop: one enqueue per queue for a whole claim). The caller MUST enqueue them
 * before it writes any of the records back.
 */
export type JobSink = Map<string, NewJob[]>;

/** A schedule's job as built for its spec: each tick's is a copy with its own id and delay. */
interface JobTemplate {
  queue: string;
  partition: number | undefined;
  facts: MachineFacts;
  job: NewJob;
}

export class ScheduleFirer {
  /**
   * Templates by spec object: the schedule loop keeps one spec object per schedule while its
   * body is unchanged, so a tick copies a job instead of checking and serializing its input.
   * Rebuilt when the machine's facts change (a new version deployed) or the partition count.
   */
  private readonly templates = new WeakMap<ScheduleSpec, JobTemplate>();

  constructor(private readonly host: FireHost) {}

  /**
   * Handles `fresh` ticks (and, with `withHeld`, the record's buffered ones first) at `now` (the
   * store's clock) under `policy`; changes `r` to say what was done. Resolves with the ids of
   * the jobs started (an id that existed already counts: its tick was fired before).
   * Without `withHeld` (a backfill), held ticks of the policy join the record's buffered ones.
   * With `sink`, the jobs are left there instead of enqueued.
   */
  async fire(
    r: ScheduleRecord,
    fresh: HeldTick[],
    now: number,
    policy: OverlapPolicy = r.spec.overlap,
    withHeld = true,
    sink?: JobSink,
  ): Promise<string[]> {
    const held = withHeld ? r.buffered : [];
    if (held.length === 0 && fresh.length === 0) return [];
    const busy = policy !== 'allowAll' && (await this.previousUnfinished(r));
    const plan = planTicks(policy, held, fresh, busy);
    if (plan.cancelPrevious && r.lastJob) await this.cancelPrevious(r, now);
    for (const t of plan.skip) noteAction(r, { at: t.at, what: 'skipped' });
    for (const t of plan.hold) if (!held.includes(t)) noteAction(r, { at: t.at, what: 'buffered' });
    r.skipped += plan.skip.length;
    r.buffered = withHeld ? plan.hold : [...r.buffered, ...plan.hold];
    if (plan.skip.length > 0)
      this.host.log?.info(
        { scheduleId: r.id, ticks: plan.skip.map((t) => t.at), overlap: policy },
        'schedule: ticks skipped, the previous job is unfinished',
      );
    return plan.start.length > 0 ? this.start(r, plan.start, now, sink) : [];
  }

  /** The previous tick's job exists and has not finished (a record gone past retention has). */
  private async previousUnfinished(r: ScheduleRecord): Promise<boolean> {
    if (!r.lastJob) return false;
    const s = await this.host.store.jobStatus(r.lastJob.id, r.lastJob.queue);
    return s !== null && !FINISHED.has(s.status);
  }

  private async cancelPrevious(r: ScheduleRecord, now: number): Promise<void> {
    const { id, queue } = r.lastJob!;
    const out = await this.host.store.cancel(
      id,
      queue,
      `cancelled by schedule '${r.id}' (overlap cancelOther)`,
    );
    if (out.hasChildren) await cancelDescendants(this.host.store, id);
    noteAction(r, { at: now, what: 'cancelledOther', jobId: id });
  }

  /** The spec's job, checked and built once (the input's schema and size), reused while nothing it depends on changed. */
  private async template(r: ScheduleRecord): Promise<JobTemplate> {
    const { spec } = r;
    const n = await this.host.router.partitions(spec.queue);
    const partition = n > 1 ? partitionOfKey(r.id, n) : undefined;
    const facts = await this.host.facts.machineInfo(spec.machine);
    const t = this.templates.get(spec);
    if (
      t &&
      t.partition === partition &&
      t.facts.version === facts.version &&
      t.facts.maxAttempts === facts.maxAttempts &&
      t.facts.input === facts.input
    )
      return t;
    const queue = partition === undefined ? spec.queue : partitionQueue(spec.queue, partition);
    const built = await buildNewJob(
      spec.machine,
      spec.input,
      { queue },
      facts,
      { queue, maxPayloadBytes: this.host.maxPayloadBytes },
      undefined,
      scheduledJobId(r.id, 0, false, partition),
    );
    const made = { queue, partition, facts, job: built.job };
    this.templates.set(spec, made);
    return made;
  }

  private async start(r: ScheduleRecord, ticks: HeldTick[], now: number, sink?: JobSink): Promise<string[]> {
    const { spec } = r;
    let jobs: NewJob[];
    let queue: string;
    try {
      const t0 = await this.template(r);
      queue = t0.queue;
      // EXACTLY ONE JOB PER TICK: each tick's job is the template under the tick's own id.
      jobs = ticks.map((t) => ({
        ...t0.job,
        id: scheduledJobId(r.id, t.at, t.manual === true, t0.partition),
        // Jitter counts from the tick, not from now: a late pass does not add to it.
        delayMs: Math.max(0, Math.round(t.at + jitterOf(r.id, t.at, spec.jitterMs) - now)),
      }));
    } catch (err) {
      // The machine is gone from the registry, or the input no longer fits its schema: the
      // ticks are spent (told in the record and the log), the schedule goes on.
      const why = toError(err).message;
      for (const t of ticks) noteAction(r, { at: t.at, what: 'error', detail: why });
      this.host.log?.warn(
        { scheduleId: r.id, err, ticks: ticks.map((t) => t.at) },
        'schedule: ticks not started',
      );
      return [];
    }
    if (sink) {
      const list = sink.get(queue);
      if (list) list.push(...jobs);
      else sink.set(queue, jobs);
    } else
      for (let i = 0; i < jobs.length; i += ENQUEUE_SLICE)
        await this.host.store.enqueue(queue, jobs.slice(i, i + ENQUEUE_SLICE));
    jobs.forEach((j, i) => noteAction(r, { at: ticks[i]!.at, what: 'started', jobId: j.id }));
    r.started += jobs.length;
    const last = ticks.at(-1)!;
    r.lastJob = { id: jobs.at(-1)!.id, queue, at: last.at };
    return jobs.map((j) => j.id);
  }
}
