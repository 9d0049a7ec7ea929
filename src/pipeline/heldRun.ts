// A held run's wait (THE EARLY LEASE: SupervisorOptions.leadMs; the claim's side is
// supervisor/HeldJobs.ts): a pipeline run claimed before its timer was due (ActiveJob.holding,
// ClaimedJob.holdUntil) waits for that timer in memory, off the supervisor's slots, and this is
// how that wait ends. The run core (pipelineRun.ts) asks it at each point where a held run
// differs from any other; one made only for a run claimed held.
//
// The rule (for both drivers; each point below is where it is enforced):
//   NO PARK    a held run does not park for a wake time up to its holdUntil (`covers`): it waits
//              in memory, and its timer fires at its stored due time, not before (timers.ts
//              re-arms it from there).
//   ITS TIMER  when that wake time comes it takes a slot (`waitFor`: then ActiveJob.wake), as it
//              does as soon as something runs before it (`running`: an event it took moved it
//              on); from then on its lease is beaten as any running job's. Its attempt's time
//              out starts at its timer, not at its claim (`left`). The timer is the driver's own
//              when it has one armed for that time that tells the run as it fires (`timerDue`:
//              MachineDriver.timerAt: both drivers' timers do, heldClock.ts for XState's); else
//              one of its own (a held event's expiry first, say). A held job
//              keeps one timer, not two (its heap is what 25k held jobs a worker cost).
//   HANDED BACK  a stop while it waits hands it back parked, as it came (`handBack`: a
//              'shutdown' abort of a held run that only waits is a park at its wake time, so it
//              runs once, when due; a requeue would run it at once, before its timer is due). A
//              stop that began before its run opened ends it there (`stoppedBeforeOpen`).

import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { Outcome } from './machineDriver.js';

/** The run a held run belongs to (pipelineRun.ts). */
export interface HeldRunOwner {
  /** Its hold ended in the run (ITS TIMER): it runs in a slot from now on. */
  holdEnded(): void;
}

export class HeldRun {
  /** The timer of its own at the held run's wake time, which gives it a slot (ITS TIMER). */
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly job: ActiveJob,
    /** Redis time (StoreClock.ts), as holdUntil and the wake times are. */
    private readonly now: () => number,
    private readonly owner: HeldRunOwner,
  ) {}

  /** How long the run is still held for (ms; 0 once its hold ended): its wait is not its time. */
  left(): number {
    return this.job.holding ? Math.max(0, (this.job.claimed.holdUntil ?? 0) - this.now()) : 0;
  }

  /** NO PARK: whether the run waits in memory for `wakeAt` because it is held until then. */
  covers(wakeAt: number): boolean {
    const until = this.job.claimed.holdUntil;
    return this.job.holding && until !== undefined && wakeAt <= until;
  }

  /**
   * ITS TIMER: the run only waits, in memory, for `wakeAt`; it takes a slot then. `timerAt`: the
   * due time of the driver's timer that tells the run as it fires (MachineDriver.timerAt): at
   * `wakeAt`, that one is its timer (`timerDue`).
   */
  waitFor(wakeAt: number, now: number, timerAt?: number): void {
    if (this.job.holding && timerAt !== wakeAt)
      this.timer ??= setTimeout(HeldRun.fired, Math.max(0, wakeAt - now), this);
  }

  /** ITS TIMER: something runs: it takes a slot now. */
  running(): void {
    this.wake();
  }

  /** ITS TIMER: the driver's timer fired (RunControl.timerDue): its wait is over. */
  timerDue(): void {
    this.wake();
  }

  /** Its own timer fired (no closure of its own: the timer carries the run). */
  private static fired(this: void, held: HeldRun): void {
    held.timer = undefined;
    held.wake();
  }

  private wake(): void {
    if (!this.job.holding) return;
    this.job.wake();
    this.owner.holdEnded();
  }

  /** HANDED BACK: a stop began before the run opened (its abort came first). */
  stoppedBeforeOpen(): boolean {
    return this.job.holding && this.job.abortReason !== null;
  }

  /**
   * HANDED BACK: the outcome the run settles with: a 'shutdown' abort of a run still held that
   * only waits (`waitsUntil`: its wake time, undefined while something runs) is a park there.
   */
  handBack(outcome: Outcome, waitsUntil: () => number | null | undefined): Outcome {
    if (outcome.kind !== 'aborted' || this.job.abortReason !== 'shutdown' || !this.job.holding)
      return outcome;
    const wakeAt = waitsUntil();
    return wakeAt === undefined ? outcome : { kind: 'park', wakeAt };
  }

  /** The run's outcome is known: its timer neither fires nor keeps the run reachable. */
  stop(): void {
    clearTimeout(this.timer);
  }
}
