// A compiled run's machine (runCompiledPipeline.ts): where it is (its state, context, running
// step's input, output and failure, and the wait state's timers), the transitions that move it
// (take: guards, assigns, the next state's entry) and what the core stores of it at each
// checkpoint, park and ending. A base class of CompiledDriver, which keeps the run itself (the
// step loop, the wait state's timers firing, the abort), so runCompiledPipeline.ts keeps the
// rest: no object of its own per run (the driver is this object).
//
// Checkpoints: each state entered is persisted as XState's persisted snapshot (the state, the
// context, the running step as an active child with its input), made by compiledParts.ts. A
// stored snapshot is restored by either runtime. Its text is made from the state's parts
// (stepStateText.ts).

import type { AnyEvent, CompiledPipeline, CompiledState, CompiledTransition, Ctx } from './compiledTable.js';
import type { CompiledStart } from './compiledStart.js';
import type { StoreTime } from '../runtime/AttemptHost.js';
import { persistedStepState } from './stepStateText.js';
import {
  compiledCheckpoint,
  compiledDone,
  compiledFailure,
  compiledPark,
  type Failure,
} from './compiledParts.js';
import { WaitTimers, type TimerOwner } from './waitTimers.js';
import type { TimedStep } from './timedStep.js';
import { notOffered } from './offerEvent.js';
import type { CheckpointParts, FailureParts, Outcome } from './machineDriver.js';

export const noStoredText = (): string => '';

/** What take() returns for a targetless transition: the machine stays in its state. */
export const STAY = Symbol('stay');
/** What take() returns (see take). */
type Taken = CompiledState | typeof STAY | null | undefined;

export abstract class CompiledMachine implements TimerOwner {
  protected state!: CompiledState;
  protected context!: Ctx;
  protected stepInput: unknown;
  /** The machine's output once a final state is entered. */
  protected output: unknown;
  protected failed: Failure | undefined;
  /** The wait state's (or timed step state's) timers while in one, the one armed, and what the
   * last checkpoint stored. */
  protected readonly timers: WaitTimers;
  /** Store time never ahead (StoreTime.now): what due times are compared with. */
  protected readonly now: () => number;
  /** Store time never behind (StoreTime.latest): what a timer's due time is stamped from. */
  protected readonly latest: () => number;

  constructor(
    protected readonly compiled: CompiledPipeline,
    protected readonly from: CompiledStart | 'fresh',
    /** Redis time (StoreClock.ts), as stored due times are: read with `now`, stamped with `latest`. */
    time: StoreTime,
    /** `<w>|<t>` of the claimed snapshot as the XState runtime keys it (storedKey). */
    private storedText: () => string,
  ) {
    this.now = time.now;
    this.latest = time.latest;
    this.timers = new WaitTimers(this.now, this);
  }

  /** A timer fired (WaitTimers' owner: the driver takes it). */
  abstract timerFired(eventType: string): void;

  /** The timed state's entry and step race (TimedStep: the driver's, made on first use). */
  protected abstract get timed(): TimedStep;

  /** The first checkpoint is always written (a resumed run logs `resumed` with it anyway), but
   * a resumed wait state's: as the XState runtime, one that has not moved is not written again. */
  storedKey(): string {
    const text = this.from !== 'fresh' && this.from.timers ? this.storedText() : '';
    // Asked once (the checkpoint writer keeps it): the claimed snapshot it is made from, parsed,
    // is not kept for the run's life (a held run's is minutes: THE EARLY LEASE).
    this.storedText = noStoredText;
    return text;
  }

  timerDueAtStart(): boolean {
    // As the XState runtime: a restored timer already due fires at once (setTimeout 0).
    const now = this.now();
    return this.from !== 'fresh' && (this.from.timers?.some((t) => t.dueAt <= now) ?? false);
  }

  /** Takes the first enabled transition of `list` (the step's onDone or onError, a wait state's
   * event); returns the state entered (null: the machine errored; undefined: none is enabled
   * and `ignore`, an event, not an error, that no transition takes; STAY: a targetless one). */
  protected take(list: CompiledTransition[], ev: AnyEvent, ignore: true): Taken;
  protected take(list: CompiledTransition[], ev: AnyEvent): CompiledState | null;
  protected take(list: CompiledTransition[], ev: AnyEvent, ignore = false): Taken {
    // The snapshot a retry resumes from is made only when the transition fails: until the last
    // line of the try nothing of the run changes, so it is the one before the transition then.
    try {
      const t = list.find((tr) => tr.guard === null || tr.guard(this.context, ev));
      if (!t && ignore) return undefined;
      if (!t) {
        // XState: an error event no transition handles errors the machine.
        this.failed = { thrown: ev.error, lastActive: this.persisted() };
        return null;
      }
      let next = this.context;
      for (const assign of t.assigns) next = assign(next, ev);
      if (t.target === null) {
        // Targetless (a wait state's event): no exit, no entry; its timers run on.
        this.context = next;
        return STAY;
      }
      const target = this.compiled.states.get(t.target)!;
      const nextInput = target.step ? target.step.input(next, ev) : undefined;
      // Entering a wait state, or a step state with a timeout, resolves its delays (XState's
      // entry raises) in the same transition.
      if (target.wait || target.step?.after) return this.timed.enter(target, next, ev, nextInput);
      this.timers.list = [];
      // Entering a final state computes the machine's output in the same transition.
      if (!target.step) this.output = this.compiled.output(next, target, ev);
      this.context = next;
      this.stepInput = nextInput;
      return target;
    } catch (err) {
      this.failed = { thrown: err, lastActive: this.persisted(), event: ev.type };
      return null;
    }
  }

  protected persisted(): unknown {
    return persistedStepState(this.state, this.context, this.stepInput);
  }

  status(): string {
    return this.failed ? 'error' : this.state.step || this.state.wait ? 'active' : 'done';
  }

  value(): unknown {
    return this.state.name;
  }

  notOffered(texts: readonly string[]): string[] {
    return notOffered(texts, { status: this.status(), value: this.state.name });
  }

  checkpoint(): CheckpointParts {
    const { state, context, stepInput } = this;
    return compiledCheckpoint({ state, context, stepInput }, this.timers.stored());
  }

  rejected(): boolean {
    return false; // the machine errors on a step's rejection only when no onError takes it
  }

  done(): ReturnType<typeof compiledDone> {
    return compiledDone(this.state, this.output, this.context);
  }

  park(): { w: string; t: string; state: string; value: unknown } {
    const { state, context, stepInput } = this;
    return compiledPark({ state, context, stepInput }, this.timers.list);
  }

  failure(outcome: Outcome): FailureParts {
    const { state, context, stepInput } = this;
    return compiledFailure(outcome, this.failed, { state, context, stepInput }, this.timers.lastStored);
  }
}
