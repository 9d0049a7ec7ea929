// The schedule loop: fires the store's schedules (docs/schedules.md), one loop per supervisor,
// any number of supervisors on one store.
//
// Modes:
//   SLEEPING  until the earliest schedule is due (the claim's `next`), at most MAX_SLEEP_MS, so
//             that a schedule created or changed meanwhile is seen within that bound. No polling
//             at a fixed short interval: an idle store costs one claim a second.
//   FIRING    a claim took the due schedules (each held for `leaseMs`, so other supervisors
//             pass it by); for each: the ticks come due (dueTicks.ts: catch-up window, missed
//             ticks logged), planned by the overlap policy (ScheduleFirer.ts); then all their
//             jobs enqueued (one call per queue), then each schedule advanced past its ticks by
//             a compare-and-set on the revision it was read at (one call for all). A full
//             claim is followed at once by the next, up to PASSES_IN_FLIGHT passes at once.
//   STOPPED   before start() and after stop() (which waits for the pass in progress).
// A pass leaves the jobs a schedule waits on followed (ScheduleWatch.ts): the job that buffered
// ticks wait behind, and every job of a schedule with pauseOnFailure. When one ends, the loop
// pauses the schedule if it failed under pauseOnFailure (pauseOnFailure.ts), then makes the
// schedule due now (Schedules.wakeSchedules) and claims at once, so a buffered tick starts as
// soon as the job before it ended. A pass also re-checks a schedule's last job (a buffered
// schedule every `bufferRecheckMs`): the net under a follow lost with a killed supervisor.
//
// EXACTLY ONE JOB PER TICK: a tick's job id is made from the schedule id and the tick time
// (scheduledJobId.ts) and the store makes a job of an id once. The schedule is advanced ONLY
// AFTER its ticks' jobs are enqueued, and only by the supervisor that read it at that revision:
// one that dies in between leaves it unadvanced, its lease passes, and the next holder fires the
// same ticks under the same ids (nothing doubled) and advances it (nothing lost). One that lost
// the compare-and-set (a client changed the schedule, or a slow holder's lease had passed)
// writes nothing; what it enqueued was the same jobs the winner enqueues.

import type { Logger } from 'pino';
import type { JobRecord, Schedules, Store } from '../store/types.js';
import type { MachineFactsLookup } from '../client/MachineFactsLookup.js';
import type { QueueRouter } from '../client/QueueRouter.js';
import { ENQUEUE_SLICE, ScheduleFirer, type JobSink } from '../client/schedules/ScheduleFirer.js';
import { dueTicks } from '../client/schedules/dueTicks.js';
import {
  decodeBody,
  decodeRecord,
  noteAction,
  writeOf,
  type ScheduleRecord,
} from '../client/schedules/scheduleRecord.js';
import { pauseForFailure } from '../client/schedules/pauseOnFailure.js';
import { updateSchedule } from '../client/schedules/updateSchedule.js';
import type { ScheduleWrite, StoredSchedule } from '../store/types.js';
import { ScheduleWatch } from './ScheduleWatch.js';

/** Longest sleep between claims: how soon a new or changed schedule is seen. */
const MAX_SLEEP_MS = 1000;
/** Schedules per claim; a full claim is followed by another at once. */
const CLAIM_BATCH = 500;
/**
 * Passes (claims) of one loop at once. A pass mostly waits (three round trips: claim, enqueue,
 * write), so a tick of 10,000 schedules, 20 claims of 500, overlaps them rather than chaining
 * them. On the shared 2-core box an A/B of 1 against 3 stayed within its noise
 * (docs/schedules.md, Measured); on a quiet one the chain of waits is what is left.
 */
const PASSES_IN_FLIGHT = 3;
/** Schedule writes per putSchedules call. */
const WRITE_SLICE = 500;
/** Schedules prepared at once within a claim (a policy other than allowAll reads the last job's status). */
const PARALLEL = 32;
/** After a failed claim (the store is away), wait this long before the next. */
const RETRY_MS = 1000;
/** Longest a stop waits for the pass in progress. */
const STOP_WAIT_MS = 2000;
/** Parsed bodies kept (by schedule id); past it the cache starts over. */
const BODIES_KEPT = 100_000;

export interface ScheduleLoopOptions {
  store: Store & Schedules;
  facts: MachineFactsLookup;
  router: QueueRouter;
  maxPayloadBytes: number;
  log: Logger;
  leaseMs: number;
  /** How soon a schedule with buffered ticks is looked at again when no ending woke it. */
  bufferRecheckMs: number;
}

/** A job a pass started or waits on, to be followed to its end once the pass's jobs exist. */
type Follow = [scheduleId: string, jobId: string, queue: string, wakes: boolean];

export class ScheduleLoop {
  private readonly firer: ScheduleFirer;
  private readonly watch: ScheduleWatch;
  /** Schedules whose awaited job ended: made due now before the next claim. */
  private readonly woken = new Set<string>();
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private done: Promise<void> | undefined;
  /**
   * Each schedule's body as last claimed, parsed: a tick parses only the small state. Kept while
   * the text is the same (a client's change makes a new text); the spec object it holds is also
   * what ScheduleFirer keys its job template on.
   */
  private readonly bodies = new Map<string, { text: string; parsed: ReturnType<typeof decodeBody> }>();

  constructor(private readonly o: ScheduleLoopOptions) {
    this.firer = new ScheduleFirer({ ...o, log: o.log });
    this.watch = new ScheduleWatch(o.store, (id, job, wakes) => this.ended(id, job, wakes), o.log);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.done = this.run();
  }

  /**
   * Ends the loop: waits for the pass in progress, but at most STOP_WAIT_MS (a claim on a store
   * that is away waits out the outage, and a stop must not). A pass left running does no harm:
   * its enqueues are of tick ids, its write a compare-and-set; its error is not logged.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.watch.close();
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.done, new Promise((r) => (timer = setTimeout(r, STOP_WAIT_MS)))]);
    clearTimeout(timer);
  }

  private async run(): Promise<void> {
    const passes = new Set<Promise<void>>();
    while (this.running) {
      let sleepMs: number;
      try {
        if (this.woken.size > 0) {
          const ids = [...this.woken];
          this.woken.clear();
          await this.o.store.wakeSchedules(ids);
        }
        const claim = await this.o.store.claimSchedules(CLAIM_BATCH, this.o.leaseMs);
        // PASSES OVERLAP: a full claim is followed by the next claim while its pass runs (each
        // schedule is held by its own claim's lease, so no two passes hold one schedule).
        const pass = this.fireAll(claim.due, claim.now)
          .catch((err: unknown) => {
            if (this.running)
              this.o.log.error(
                { err },
                'schedule loop: pass failed; its schedules come due again when their leases pass',
              );
          })
          .finally(() => passes.delete(pass));
        passes.add(pass);
        const full = claim.due.length === CLAIM_BATCH;
        if (!full || passes.size >= PASSES_IN_FLIGHT) await Promise.race(passes);
        if (!full) await Promise.all(passes);
        sleepMs =
          full || this.woken.size > 0
            ? 0
            : Math.min(MAX_SLEEP_MS, Math.max(0, (claim.next ?? Infinity) - claim.now));
      } catch (err) {
        if (!this.running) break;
        this.o.log.error({ err }, 'schedule loop: claim failed; trying again');
        sleepMs = RETRY_MS;
      }
      if (this.running && sleepMs > 0) await this.sleep(sleepMs);
    }
    await Promise.all(passes);
  }

  /**
   * A followed job ended: under pauseOnFailure a failure pauses its schedule first (so that no
   * buffered tick starts behind it), then, when ticks wait behind the job (`wakes`), the
   * schedule is woken and the loop claims at once.
   */
  private ended(scheduleId: string, job: JobRecord, wakes: boolean): void {
    const paused =
      job.status === 'failed'
        ? updateSchedule(this.o.store, scheduleId, (r, now) => pauseForFailure(r, job.id, job.error, now))
        : Promise.resolve();
    void paused
      .catch((err: unknown) =>
        this.o.log.warn(
          { err, scheduleId, jobId: job.id },
          'schedule: pause on failure not written; its next pass tries',
        ),
      )
      .then(() => {
        if (!wakes) return;
        this.woken.add(scheduleId);
        this.wake?.();
      });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }

  /**
   * One claim's schedules: each one's ticks planned (prepare), then EVERY JOB ENQUEUED (one call
   * per queue and slice), and only then every schedule advanced (one putSchedules call per
   * slice, each write its own compare-and-set). A failed enqueue advances none of them: their
   * leases pass and they are fired again under the same tick ids.
   */
  private async fireAll(due: StoredSchedule[], now: number): Promise<void> {
    if (due.length === 0) return;
    const sink: JobSink = new Map();
    const writes: ScheduleWrite[] = [];
    const follows: Follow[] = [];
    for (let i = 0; i < due.length; i += PARALLEL)
      await Promise.all(
        due.slice(i, i + PARALLEL).map(async (s) => {
          const w = await this.prepare(s, now, sink, follows);
          if (w) writes.push(w);
        }),
      );
    try {
      for (const [queue, jobs] of sink)
        for (let i = 0; i < jobs.length; i += ENQUEUE_SLICE)
          await this.o.store.enqueue(queue, jobs.slice(i, i + ENQUEUE_SLICE));
    } catch (err) {
      this.o.log.error(
        { err },
        'schedule: enqueue failed; the schedules are fired again when their leases pass',
      );
      return;
    }
    // The jobs exist now (a follow of a job not yet made would wait for nothing).
    for (const [scheduleId, jobId, queue, wakes] of follows)
      this.watch.follow(scheduleId, jobId, queue, wakes);
    for (let i = 0; i < writes.length; i += WRITE_SLICE) {
      const slice = writes.slice(i, i + WRITE_SLICE);
      // THE COMPARE-AND-SET: only the revision read moves on.
      const revs = await this.o.store.putSchedules(slice);
      revs.forEach((rev, k) => {
        if (rev === null)
          this.o.log.debug({ scheduleId: slice[k]!.id }, 'schedule: changed meanwhile; left as written');
      });
    }
  }

  /** One schedule's pass, up to its write; an error leaves it unadvanced (its lease passes and it is tried again). */
  private async prepare(
    s: StoredSchedule,
    now: number,
    sink: JobSink,
    follows: Follow[],
  ): Promise<ScheduleWrite | null> {
    try {
      let body = this.bodies.get(s.id);
      if (s.state !== null && body?.text !== s.body) {
        if (this.bodies.size >= BODIES_KEPT) this.bodies.clear();
        this.bodies.set(s.id, (body = { text: s.body, parsed: decodeBody(s.body) }));
      }
      const r = decodeRecord(s, s.state === null ? undefined : body!.parsed);
      // A pause is the body's (paused, note): then the write carries the body too.
      const pausedNow = !r.paused && (await this.pauseIfLastFailed(r, now));
      if (!r.paused) {
        const d = dueTicks(r, now);
        if (d.missed) {
          r.missed += d.missed.count;
          noteAction(r, {
            at: d.missed.from,
            what: 'missed',
            detail: `${d.missed.atLeast ? 'at least ' : ''}${d.missed.count}`,
          });
          this.o.log.warn(
            {
              scheduleId: r.id,
              from: d.missed.from,
              count: d.missed.count,
              catchupWindowMs: r.spec.catchupWindowMs,
            },
            'schedule: ticks missed (older than the catch-up window), skipped',
          );
        }
        r.next = d.next;
        const started = await this.firer.fire(
          r,
          d.fresh.map((at) => ({ at })),
          now,
          r.spec.overlap,
          true,
          sink,
        );
        r.updatedAt = now;
        const last = r.lastJob;
        if (last && r.spec.pauseOnFailure)
          for (const id of started) follows.push([r.id, id, last.queue, false]);
        if (last && r.buffered.length > 0) follows.push([r.id, last.id, last.queue, true]);
      }
      // The state and the new actions only (the body too for a schedule stored whole: it is split now).
      return writeOf(r, now, s.rev, pausedNow, this.o.bufferRecheckMs);
    } catch (err) {
      this.o.log.error({ err, scheduleId: s.id }, 'schedule: pass failed; tried again when its lease passes');
      return null;
    }
  }

  /**
   * The net under a lost follow (pauseOnFailure): the last job found failed, and its failure has
   * not paused the schedule yet, pauses it now. True when it did.
   */
  private async pauseIfLastFailed(r: ScheduleRecord, now: number): Promise<boolean> {
    const last = r.lastJob;
    if (!r.spec.pauseOnFailure || !last || last.id === r.pausedOnFailureOf) return false;
    const status = await this.o.store.jobStatus(last.id, last.queue);
    if (status?.status !== 'failed') return false;
    const job = await this.o.store.getJob(last.id, last.queue);
    return pauseForFailure(r, last.id, job?.error ?? null, now);
  }
}
