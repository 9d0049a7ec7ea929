// A compiled run's wait-state timers (runCompiledPipeline.ts): made from the state's `after`
// delays on entry, the one due first armed in memory, and the list each checkpoint stores. Apart
// from the driver, which keeps the transitions (what a fired timer or an offered event does), so
// that making, arming and disarming the timers is in one place. It holds:
//   - the list is in XState's order (the delays' entry order) with due times in Redis time, as
//     the XState runtime stores it (compiledTimers.ts reads such a list back on a resume);
//   - at most one timer is armed in memory (the one firstToFire picks), and disarm() clears it;
//   - DUE AT ONCE: a timer due already when armed (a resumed pipeline's, most of them) fires at
//     the next immediate, not at a setTimeout(0), which Node holds for at least 1 ms: with a claim
//     of 50 woken jobs in hand and the next claim's round trip in flight, that millisecond left
//     the worker idle (test/pipeline/dueTimerAtOnce.test.ts). Still after the start's synchronous
//     work, and before the start's first flush (a timer, pipelineRun.ts), as setTimeout(0) was;
//   - a timer past setTimeout's range is never armed: the run parks (the core decides, parkAt);
//   - no closure of its own: the armed timer carries this object (a held run keeps its timers for
//     minutes: THE EARLY LEASE, heldRun.ts), and tells its owner as it fires.

import type { AnyEvent, CompiledWait, Ctx } from './compiledTable.js';
import { firstToFire } from './compiledTimers.js';
import { MAX_TIMER_MS, earliestDue, type StoredTimer } from './timers.js';

/**
 * A wait state's timers on entry with `context` (XState's entry raises, in order), and the events
 * of its delays that are not numbers, in order (XState raises them at once, in the same
 * macrostep). A delay that throws throws here, before the run changes.
 */
export function entryTimers(
  wait: CompiledWait,
  context: Ctx,
  ev: AnyEvent,
  now: () => number,
): { timers: StoredTimer[]; raised: string[] } {
  const timers: StoredTimer[] = [];
  const raised: string[] = [];
  let at: number | undefined;
  for (const d of wait.delays) {
    const delay = d.delay(context, ev);
    if (typeof delay !== 'number') raised.push(d.eventType);
    else {
      at ??= now();
      const dueAt = Math.round(at + delay);
      timers.push({ id: d.eventType, source: '', target: '', event: { type: d.eventType }, dueAt });
    }
  }
  return { timers, raised };
}

/** The driver a wait state's timers tell (runCompiledPipeline.ts). */
export interface TimerOwner {
  /** The timer of `eventType` fired (it is disarmed by then). */
  timerFired(eventType: string): void;
}

export class WaitTimers {
  /** The wait state's timers while in one (due times in Redis time), in XState's order. */
  list: StoredTimer[] = [];
  /** The timers the last checkpoint stored (what a failure stores, as the XState runtime's). */
  lastStored: StoredTimer[] = [];
  /** The in-memory timer of a wait state (the one due first). */
  private armed: NodeJS.Timeout | undefined;
  /** That timer, due already when armed: it fires at the next immediate (DUE AT ONCE). */
  private armedNow: NodeJS.Immediate | undefined;
  /** The due time (Redis ms) of the timer armed in memory, 0 when none is. */
  private armedDue = 0;
  /**
   * A held run's timer that fired and waits its turn to be taken (THE GATE,
   * supervisor/WakeGate.ts): its event, until the owner takes it, or a disarm or a new arming
   * drops it (its state was left meanwhile: it is not taken then).
   */
  waitingTurn: string | undefined;

  constructor(
    /** Redis time (StoreClock.ts), as stored due times are. */
    private readonly now: () => number,
    private readonly owner: TimerOwner,
  ) {}

  /** A resumed wait state's stored timers: its list, and what its first checkpoint stored. */
  restore(timers: StoredTimer[]): void {
    this.list = timers;
    this.lastStored = timers;
  }

  /** Sets the first timer to fire running in memory. */
  arm(): void {
    this.waitingTurn = undefined;
    const first = firstToFire(this.list, this.now());
    if (!first) return;
    if (first.ms <= 0) this.armedNow = setImmediate(WaitTimers.fired, this, first.timer.id);
    // Past setTimeout's range Node fires at once (TimeoutOverflowWarning): such a timer is not
    // armed, and the run parks (it is due far beyond PARK_MIN_MS), as the XState runtime's does.
    else if (first.ms <= MAX_TIMER_MS)
      this.armed = setTimeout(WaitTimers.fired, first.ms, this, first.timer.id);
    else return;
    this.armedDue = first.timer.dueAt;
  }

  private static fired(this: void, timers: WaitTimers, eventType: string): void {
    timers.armed = undefined;
    timers.armedNow = undefined;
    timers.armedDue = 0;
    timers.owner.timerFired(eventType);
  }

  disarm(): void {
    this.waitingTurn = undefined;
    clearTimeout(this.armed);
    clearImmediate(this.armedNow);
    this.armed = undefined;
    this.armedNow = undefined;
    this.armedDue = 0;
  }

  /** The due time (Redis ms) of the timer armed in memory, which tells its owner as it fires;
   * undefined when none is armed. */
  armedAt(): number | undefined {
    return this.armedDue === 0 ? undefined : this.armedDue;
  }

  /** The timer of `eventType` fired and its event was ignored: it is gone from the list. */
  spend(eventType: string): void {
    this.list = this.list.filter((t) => t.id !== eventType);
  }

  /** The list a checkpoint stores now (what a failure after it stores too). */
  stored(): StoredTimer[] {
    return (this.lastStored = this.list);
  }

  /** The first due time the last checkpoint stored (null: none, the state waits on events only). */
  parkAt(): number | null {
    return earliestDue(this.lastStored);
  }
}
