// The pipeline runtime core: one attempt of a pipeline job, whichever driver runs its machine
// (machineDriver.ts: XState actors, or a compiled step table). Its modes:
//   running   the driver runs the machine and marks the run dirty at each move; ONE checkpoint
//             per turn of the event loop (setImmediate) stores what the machine is now. It is
//             not awaited: a crash before it lands only re-runs the step it covered, and a
//             refused one (lease lost) aborts the run through the supervisor. A checkpoint that
//             cannot be taken fails this job alone, for good: the flush MUST NOT throw (from
//             setImmediate, a throw would kill the worker and every job in it). Audit entries
//             with no move of the machine (a run's `resumed`, an event ignored) are held for the
//             next write to carry them (checkpointWriter.ts: `hold`, LOG_ONLY_MS at most).
//             AT START: so is a fresh run's first checkpoint while its machine is where the
//             start put it (MachineDriver.atStart: its first step in flight, nothing settled or
//             taken): it would store only what a fresh claim makes again (the initial state, its
//             context, the step's input), no step's result, so a crash before it is written
//             loses nothing a checkpoint would have kept. It is taken (a context that cannot be
//             stored fails the job there, as any first checkpoint), not written: it rides on the
//             next write (a step that yields: the checkpoint of the state its result enters, one
//             op for the two: workload 6b), or is written LOG_ONLY_MS on (a long first step).
//   reading   the job's inbox is read from where this run has read it to, and read once more
//             when an event arrives while a read is in flight; each event is offered to the
//             machine, held when no state takes it now and its sender asked to wait
//             (heldEvents.ts: offered again at each checkpoint), and a text that is not JSON is
//             logged as ignored.
// and it ends in one of four ways (the first outcome counts; runEnding.ts writes each, as
// pipelineEnding.ts stores it):
//   done      the machine reached a final state: its output is the job's output;
//   error     the machine errored: an invoked actor's rejection no onError took follows the
//             lifecycle's retry policy (a retry resumes from the last checkpoint, so completed
//             steps do not run again); its own code that threw fails the job at once
//             (MachineActionError: machineFault.ts);
//   park      nothing runs and it only waits (events, timers, child jobs), no inbox read is in
//             flight, and its wake time is not within PARK_MIN_MS: persist, give up the slot;
//             the store wakes the job when its wait is over (the driver says when it may).
//             A run claimed before its timer was due (THE EARLY LEASE: heldRun.ts holds its
//             rule) does not park for a wake time up to its holdUntil but waits in memory, off
//             the slots, and a stop while it waits parks it (HANDED BACK);
//   aborted   timeout / cancel / shutdown / lease lost (see settle.ts). The timeout is the
//             supervisor's deadline sweep (job.deadline, LeaseKeeper.ts): no timer per job.

import type { LifecycleSnapshot } from '../../machines/job.js';
import type { ActiveJob, JobRun } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import { successPath } from '../runtime/lifecycle.js';
import { settleFailure } from '../runtime/settle.js';
import { parseInboxEvent, type InboxEvent } from '../runtime/inboxEvent.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import { CheckpointWriter, checkpointKey } from './checkpointWriter.js';
import { HeldEvents } from './heldEvents.js';
import { unstorable, writeRunEnding } from './runEnding.js';
import type { MachineDriver, Outcome, RunControl } from './machineDriver.js';
import type { Offered } from './heldEvents.js';
import { HeldRun, type HeldRunOwner } from './heldRun.js';
import { earliestOf } from '../runtime/earliestOf.js';

/** A timer due sooner than this is waited for in memory rather than parking the job. */
export const PARK_MIN_MS = 200;

/**
 * Whether a run waits in memory for `wakeAt` (store clock, ms) rather than parking: within
 * PARK_MIN_MS, or a held run's timer due by its holdUntil (NO PARK: heldRun.ts).
 */
export function mayWaitInMemory(wakeAt: number, now: number, heldRun: HeldRun | undefined): boolean {
  return wakeAt - now <= PARK_MIN_MS || (heldRun !== undefined && heldRun.covers(wakeAt));
}

// A held run (THE EARLY LEASE) keeps its run for minutes, 25k of them a worker: what a run
// keeps is counted (bench/probes/heldMemory.ts). So its callbacks are not closures of its own
// (timers carry the run: `setTimeout(PipelineRun.flush, 0, this)`), the run's promise is made
// by run() and resolved by the first outcome, and what only events or a write need is made then.
export class PipelineRun implements RunControl, HeldRunOwner, JobRun {
  /** The attempt's lifecycle after its claim (successPath: shared by every job with this attempt
   * and maxAttempts); a failure's move is read from it (settle.ts failureMove). */
  private readonly life: LifecycleSnapshot;
  private readonly held: HeldEvents;
  private readonly checkpoints: CheckpointWriter;
  private inboxConsumed: number;
  private inboxReading: Promise<void> | undefined;
  private readAgain = false;
  /** The outcome is known: nothing more is read, offered or checkpointed. */
  private detached = false;
  private flushScheduled = false;
  /** A start whose restored timer fires at once: its moves wait for the flush queued after it. */
  private starting = false;
  /** The start's first flush (a restored timer due at once), until it runs or the run ends. */
  private firstFlush: NodeJS.Timeout | undefined;
  /** THE EARLY LEASE: a run claimed held, its wait and what ends it (undefined: not held). */
  private readonly heldRun: HeldRun | undefined;
  /** The first outcome (the run's ends there), and the run's promise's resolve. */
  private outcome: Outcome | undefined;
  /** run() is opening the machine: an outcome settled meanwhile is finished once it returns. */
  private opening = false;
  private resolveRun: ((ended: Promise<void>) => void) | undefined;
  /** The driver's offer, bound when an event is first offered. */
  private offerFn: ((msg: InboxEvent) => Offered) | undefined;

  constructor(
    private readonly job: ActiveJob,
    private readonly def: PipelineDefinition,
    private readonly timeoutMs: number,
    private readonly host: AttemptHost,
    private readonly driver: MachineDriver,
    /** The `h` of the claimed snapshot: events held until a state takes them. */
    storedHeld: unknown,
  ) {
    const c = job.claimed;
    this.life = successPath(c.attempt, c.maxAttempts, false).claimed;
    this.inboxConsumed = c.inbox;
    this.held = new HeldEvents(storedHeld);
    // What the last checkpoint held (machine snapshot, timers, held events), to skip writing it again.
    this.checkpoints = new CheckpointWriter(job, driver, this.held.text());
    this.heldRun = job.holding ? new HeldRun(job, host.now, this) : undefined;
  }

  /**
   * Runs the attempt to its ending write. Not an async function: the run waits for its outcome
   * with no frame of its own (an async one's frame is held for the run's whole life, through
   * the scavenges of a busy worker); finish() takes it from there, one tick after the outcome,
   * as an await would (settle).
   */
  run(): Promise<void> {
    const ran = new Promise<void>((resolve) => (this.resolveRun = resolve));
    this.opening = true;
    this.begin();
    this.opening = false;
    // An outcome the start settled: finished from here, after what the start queued (as a
    // reaction registered now would run).
    if (this.outcome !== undefined) this.finishSoon(this.outcome);
    return ran;
  }

  /** The driver's offer (made once an event is offered: most runs are offered none). */
  private get offer(): (msg: InboxEvent) => Offered {
    return (this.offerFn ??= (msg) => this.driver.offer(msg));
  }

  /** Opens and starts the machine; what throws there is the run's outcome (an error). */
  private begin(): void {
    const { job, driver } = this;
    const c = job.claimed;
    job.timeoutMs = this.timeoutMs;
    // A held run's attempt starts at its timer (ITS TIMER, heldRun.ts).
    job.setDeadline(performance.now() + (this.heldRun?.left() ?? 0) + this.timeoutMs);
    try {
      driver.open(this);
      job.pipeline = this;
      // Events sent before this claim; later ones are announced on the control channel.
      if (c.hasInbox || job.inboxSignal) this.readInbox();
      if (driver.timerDueAtStart()) {
        // A restored timer fires at once (setTimeout 0, queued by the start): the first flush
        // is a timer queued after it, so it sees where that took the machine, and a resume
        // whose timer ends the job writes its ending alone, with no checkpoint computed to
        // learn that nothing moved before it (~10% of a resume's worker CPU). Any other start
        // flushes at the immediate its first move queues, as always.
        this.starting = true;
        try {
          driver.start();
        } finally {
          this.starting = false;
        }
        this.flushScheduled = true;
        this.firstFlush = setTimeout(PipelineRun.flush, 0, this);
      } else {
        driver.start();
        this.markDirty();
      }
      // A held run handed back before it opened (a stop that began meanwhile): ended now.
      if (this.heldRun?.stoppedBeforeOpen()) this.settle({ kind: 'aborted' });
    } catch (err) {
      this.settle({ kind: 'error', error: err });
    }
  }

  /** The outcome is known: nothing more runs; its ending is written. */
  private async finish(result: Outcome): Promise<void> {
    const { job, driver, life, def, timeoutMs, checkpoints, held } = this;
    this.detached = true;
    checkpoints.stop();
    // A resume whose timer ended it (most): its first flush would find the run detached; cleared,
    // it neither fires nor keeps the run's objects reachable from the timer list until then.
    clearTimeout(this.firstFlush);
    this.heldRun?.stop();
    held.stop();
    job.setDeadline(0);
    driver.halt(result);
    try {
      await writeRunEnding(job, life, def, timeoutMs, driver, checkpoints, held, this.inboxConsumed, result);
    } catch (err) {
      // A snapshot that cannot be stored (UNSERIALIZABLE_SNAPSHOT): the job fails, for good.
      await settleFailure(job, life, unstorable(err), {
        retry: def.retry,
        timeoutMs,
        log: checkpoints.pending,
      });
    } finally {
      try {
        driver.stop();
      } catch (err) {
        this.host.log.warn({ err, jobId: job.id }, 'stopping the machine failed');
      }
    }
  }

  settle(outcome: Outcome): void {
    if (this.outcome !== undefined) return; // the first outcome counts
    // A held run stopped while it only waits goes back parked (HANDED BACK, heldRun.ts).
    const o = (this.outcome =
      this.heldRun === undefined ? outcome : this.heldRun.handBack(outcome, () => this.waitsUntil()));
    if (!this.opening) this.finishSoon(o);
  }

  /** finish() one tick on, as a reaction to a settled promise would run; the run's promise
   * follows it. */
  private finishSoon(o: Outcome): void {
    const resolve = this.resolveRun!;
    this.resolveRun = undefined;
    queueMicrotask(() => resolve(this.finish(o)));
  }

  timerDue(): void {
    this.heldRun?.timerDue();
  }

  /**
   * HeldRunOwner: the held run's hold ended (ITS TIMER): entries it holds back (CheckpointWriter.hold)
   * get their timer now, unless what woke it goes on to a write or an ending anyway (its machine
   * moved: the flush queued writes them or holds them anew; it ended: its ending carries them),
   * which is most wakes: a timer armed there was a timer to clear, on the drain's hot path.
   */
  holdEnded(): void {
    if (!this.checkpoints.holding || this.flushScheduled || this.outcome !== undefined) return;
    if (this.driver.status() === 'active') this.checkpoints.armHold(this.host.now, this);
  }

  /** When the run's wait ends (its timers' and held events' first; null: none); undefined while
   * something runs. */
  private waitsUntil(): number | null | undefined {
    const due = this.driver.parkAt();
    return due === undefined ? undefined : earliestOf(due, this.held.earliestExpiry());
  }

  log(entry: string): void {
    this.checkpoints.pending.push(entry);
  }

  entered(stateText: string, context: unknown): void {
    this.checkpoints.entered(stateText, context);
  }

  markDirty(): void {
    if (this.flushScheduled || this.detached || this.starting) return;
    this.flushScheduled = true;
    setImmediate(PipelineRun.flush, this);
  }

  private static flush(this: void, run: PipelineRun): void {
    run.flushScheduled = false;
    run.firstFlush = undefined;
    if (run.detached) return;
    // From setImmediate: a checkpoint that cannot be taken fails this job alone, never the worker.
    try {
      run.checkpoint();
    } catch (err) {
      run.settle({ kind: 'error', error: unstorable(err) });
    }
  }

  private checkpoint(): void {
    const { driver, held, host, checkpoints } = this;
    if (driver.status() !== 'active') return; // done / error: the outcome writes the ending
    // The machine settled: what it did not take before, it may take now (each taken one is a
    // new move, checkpointed by the flush it schedules). The store's time is read only when
    // an event is held: with none, neither call uses it.
    if (held.size > 0) held.retry(this.offer, host.now(), checkpoints.pending);
    if (driver.status() !== 'active') return;
    const p = driver.checkpoint();
    if (
      !checkpoints.logOnlyDue &&
      checkpoints.lastState === '' &&
      held.size === 0 &&
      this.inboxConsumed === checkpoints.writtenInbox &&
      this.job.status === 'working' &&
      driver.atStart?.()
    ) {
      // AT START: taken (a context that cannot be stored fails the job here, at its first
      // checkpoint, as documented), held, not written. Its state's entry is in the log already
      // (the driver logs a step's state as it enters it); a step runs: nothing to park.
      return checkpoints.hold(this.heldRun?.left() ?? 0, host.now, this);
    }
    const hText = held.text();
    const key = checkpointKey(p.w, p.t, hText);
    const logOnly = this.inboxConsumed === checkpoints.writtenInbox && checkpoints.logOnly(key);
    if (logOnly && !checkpoints.logOnlyDue) {
      // The entries wait for the next write (the machine's next move, its park or its ending);
      // the state's own entry is taken now, as a write would, so the log reads the same.
      checkpoints.entered(p.state, p.context);
      checkpoints.hold(this.heldRun?.left() ?? 0, host.now, this);
    } else checkpoints.write(key, p.w, p.t, p.state, p.context, this.inboxConsumed, hText);
    held.wakeAtExpiry(held.size > 0 ? host.now() : 0, this);
    if (this.inboxReading) return;
    const wakeAt = this.waitsUntil();
    // Something runs (an event a held run took moved it on): a held run takes a slot now.
    if (wakeAt === undefined) return this.heldRun?.running();
    const now = host.now();
    if (wakeAt === null || !mayWaitInMemory(wakeAt, now, this.heldRun)) this.settle({ kind: 'park', wakeAt });
    else this.heldRun?.waitFor(wakeAt, now, driver.timerAt?.());
  }

  /** JobRun.takeHeld: the entries a hold kept back (CheckpointWriter.takeHeld). */
  takeHeld(): string[] {
    return this.checkpoints.takeHeld();
  }

  /** Offers events read from the inbox; false once the machine cannot take any more. */
  private deliver(texts: string[]): boolean {
    const { driver, checkpoints } = this;
    for (const [i, text] of texts.entries()) {
      if (driver.status() !== 'active') {
        // An earlier event of this batch errored (or ended) the machine: these are not offered,
        // nor counted as taken in (offerEvent.ts notOffered says what becomes of them).
        checkpoints.pending.push(...driver.notOffered(texts.slice(i)));
        this.markDirty();
        return false;
      }
      this.inboxConsumed++;
      const msg = parseInboxEvent(text);
      if (!msg) {
        checkpoints.pending.push(JSON.stringify({ type: 'event-ignored', reason: 'not JSON' }));
        continue;
      }
      this.held.receive(msg, this.offer, this.host.now(), checkpoints.pending, driver.value());
    }
    this.markDirty();
    return true;
  }

  /** JobRun.readInbox: an event was sent to the job (nothing once the run is detached). */
  readInbox(): void {
    if (this.detached) return;
    if (this.inboxReading) {
      // A read in flight may have run before this event was pushed: read once more after it.
      this.readAgain = true;
      return;
    }
    this.inboxReading = this.readUntilEmpty();
  }

  private async readUntilEmpty(): Promise<void> {
    const id = this.job.id;
    try {
      for (;;) {
        this.readAgain = false;
        const texts = await this.host.readInbox(id, this.inboxConsumed);
        if (this.detached) break;
        if (texts.length > 0) {
          if (!this.deliver(texts)) break;
        } else if (!this.readAgain) break;
      }
    } catch (err) {
      this.host.log.warn(
        { err, jobId: id },
        'reading inbox failed; the job reads it again at its next event notice, park or attempt',
      );
    } finally {
      this.inboxReading = undefined;
      this.markDirty();
    }
  }
}
