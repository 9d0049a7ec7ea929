// A compiled run's timed states (runCompiledPipeline.ts): the entry of a state with `after`
// delays (a wait state, or a step state with a timeout) and the race of a timed step with its
// state's timers. Apart from the driver, which keeps the transitions, so that what a timer does
// to a running step is in one place. It holds:
//   - ENTRY: a timed state's timers are made on entry as XState's entry raises them, in order;
//     the delays that are not numbers raise their events at once, in order (XState: in the same
//     macrostep): the first whose transition is enabled leaves the state (the others it raised
//     find no transition in the state it leads to), and the step of a state left so is never
//     called; one with none enabled (a step state's guarded `after`) is ignored;
//   - THE RACE: while a timed step runs, the one of its state's timers due first is armed in
//     memory (WaitTimers), however far (a running step never parks), and the first of the
//     step's result and that timer is taken, never both: a timer that fires once the race has
//     ended (the step settled, the run halted) is not the step's; a result taken disarms the
//     timer (the state's exit cancels them); a timer taken aborts the step's own signal after
//     the timer's transition's actions (the driver does: XState's deferred stop of the invoked
//     actor), and the step's late result is ignored.

import type { AnyEvent, CompiledState, CompiledTransition, Ctx } from './compiledTable.js';
import { entryTimers, type WaitTimers } from './waitTimers.js';

/** The driver's side of a timed state's entry. */
export interface TimedEntryHost {
  /** The state's context and its step's input (undefined: a wait state) on entry. */
  entered(context: Ctx, stepInput: unknown): void;
  /** Takes `list`, the transitions of an after event XState raises at once in state `w`, from
   * there (null: the machine errored; undefined: none is enabled, the event is ignored). */
  takeRaised(w: CompiledState, list: CompiledTransition[], ev: AnyEvent): CompiledState | null | undefined;
  /** A timer of the running step's state fired: its transition taken, the state it entered
   * (null: the machine errored), or undefined: none was enabled, the event ignored. */
  timerTaken(eventType: string): CompiledState | null | undefined;
}

export class TimedStep {
  /** Set while a timed step runs: a timer of its state took its transition (the race ends). */
  private stepTimer: ((taken: { next: CompiledState | null }) => void) | undefined;

  constructor(
    private readonly timers: WaitTimers,
    /** Redis time never behind (StoreTime.latest): what the timers' due times are stamped from. */
    private readonly latest: () => number,
    private readonly host: TimedEntryHost,
  ) {}

  /**
   * Enters wait state `w`, or step state `w` with a timeout (its step's `input`), with `context`
   * (XState's entry raises, in order): its timers, then the events of its delays that are not
   * numbers, in order (ENTRY; a step's actor, spawned but started only after the macrostep, is
   * stopped before it starts when one leaves the state). Returns the state the machine is in
   * then (null: the machine errored). A delay that throws changes nothing.
   */
  enter(w: CompiledState, context: Ctx, ev: AnyEvent, input: unknown): CompiledState | null {
    const wait = (w.wait ?? w.step!.after)!;
    const { timers, raised } = entryTimers(wait, context, ev, this.latest);
    this.host.entered(context, w.step ? input : undefined);
    this.timers.list = timers;
    for (const type of raised) {
      const next = this.host.takeRaised(w, wait.on.get(type)!, { type });
      if (next === undefined) continue; // none enabled: ignored, the state stays
      // Left: the state entered has its own timers (take made them); an errored machine none.
      if (next === null) this.timers.list = [];
      return next;
    }
    return w;
  }

  /**
   * A timed step's call raced with its state's timers (the one due first armed in memory; one
   * past setTimeout's range never fires, as on the XState runtime's clock): the step's output,
   * or the state the transition of the first timer that took one entered (null: the machine
   * errored), taken as it fired.
   */
  race(call: Promise<unknown>): Promise<{ output: unknown } | { next: CompiledState | null }> {
    const timer = new Promise<{ next: CompiledState | null }>((resolve) => (this.stepTimer = resolve));
    this.timers.arm();
    return Promise.race([call.then((output) => ({ output })), timer]);
  }

  /** A timer fired: true when it was the running timed step's (its transition taken, or its
   * event ignored and the next timer armed: the step runs on). */
  fired(eventType: string): boolean {
    const stepTimer = this.stepTimer;
    if (!stepTimer) return false;
    const next = this.host.timerTaken(eventType);
    if (next === undefined) {
      this.timers.arm();
      return true;
    }
    this.stepTimer = undefined;
    stepTimer({ next });
    return true;
  }

  /** The step settled (or was abandoned): no timer is its any more. */
  ended(): void {
    this.stepTimer = undefined;
  }
}
