// The clock of a held run's XState actors (THE EARLY LEASE: heldRun.ts; the XState driver's side
// of what the compiled driver's WaitTimers does for its runs). A run claimed held gets this clock
// in place of timerClock (timers.ts), so that its machine's own timers do the two things a held
// run needs of the timer it waits for:
//   ITS TIMER  a timer that fires tells the run (RunControl.timerDue), once its event is taken,
//              in the same turn: the held run's wait is over, and it keeps no timer of its own
//              beside its machine's (XStateDriver.timerAt). 25k held jobs a worker: one timer
//              each, not two.
//   THE GATE   a timer that fires while its run is held waits its turn (ActiveJob.passWake,
//              supervisor/WakeGate.ts) while the worker's writes wait on the store; its event is
//              taken when its turn comes, unless XState cleared it meanwhile (its state was
//              left: an event moved the machine on), as the compiled driver drops a wake whose
//              state was left (WaitTimers.waitingTurn).
// A timer that fires once the hold is over goes on at once, as timerClock's would: passWake
// answers true for a run not held, and the run's timerDue does nothing then.

import type { ActiveJob, DeferredWake } from '../runtime/ActiveJob.js';
import { MAX_TIMER_MS } from './timers.js';

const ARMED = 0;
const WAITING_TURN = 1;
const GONE = 2;

/** One timer XState armed (the handle it is given back, and clears). */
class HeldClockTimer implements DeferredWake {
  handle: NodeJS.Timeout | undefined;
  state: typeof ARMED | typeof WAITING_TURN | typeof GONE = ARMED;

  constructor(
    readonly clock: HeldClock,
    readonly fn: () => void,
  ) {}

  /** THE GATE: its turn came. */
  wakeNow(): void {
    if (this.state === WAITING_TURN) this.clock.take(this);
  }
}

export class HeldClock {
  /** Timers armed or waiting their turn: each tells the run as its event is taken. */
  private live = 0;

  constructor(
    private readonly job: ActiveJob,
    /** The run, told as a timer's event is taken (RunControl.timerDue). */
    private readonly run: { timerDue(): void },
  ) {}

  /** Whether a timer of this clock will still tell the run (ITS TIMER). */
  get armed(): boolean {
    return this.live > 0;
  }

  /** As timerClock's: a delay past setTimeout's range is not armed (the run parks instead). */
  setTimeout(fn: () => void, ms: number): HeldClockTimer | undefined {
    if (ms > MAX_TIMER_MS) return undefined;
    const t = new HeldClockTimer(this, fn);
    t.handle = setTimeout(HeldClock.fired, ms, t);
    this.live++;
    return t;
  }

  clearTimeout(t: HeldClockTimer | undefined): void {
    if (t === undefined || t.state === GONE) return;
    clearTimeout(t.handle);
    t.state = GONE;
    this.live--;
  }

  private static fired(this: void, t: HeldClockTimer): void {
    t.handle = undefined;
    if (t.state !== ARMED) return;
    if (t.clock.job.passWake(t)) t.clock.take(t);
    else t.state = WAITING_TURN;
  }

  /** The timer's event is taken, then the run is told (ITS TIMER). */
  take(t: HeldClockTimer): void {
    t.state = GONE;
    this.live--;
    try {
      t.fn();
    } finally {
      this.run.timerDue();
    }
  }
}
