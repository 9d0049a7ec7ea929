// Runs a compiled step-only pipeline (compileSteps.ts): the same job, the same records, the same
// log as the XState driver, without XState actors. The runtime core (pipelineRun.ts) owns the
// inbox, checkpoints, held events, the timeout and the ending; this driver (CompiledDriver)
// runs the machine (a step's call is compiledStep.ts's, an offered event's answer
// compiledOffer.ts's) on its base class, CompiledMachine (compiledMachine.ts: where the machine
// is, its transitions and the persisted snapshot, each checkpoint's). Its modes:
//   stepping   one step of the current state runs (awaited through job.race, so timeout,
//              cancel, lease loss and shutdown end the wait at once: its aborts reach the run
//              through that race, not the job's signal, which most steps never create); its
//              result picks the transition (guards, assigns), which enters the next step's
//              state or a final one. A step with a timeout (`after` beside its invoke) races
//              its state's timers (timedStep.ts: its timers are stored in each checkpoint; a
//              running step never parks); a restored one re-runs its step with its stored input
//              and its timers' stored due times. An event a step state takes while its step
//              runs (`on` beside the invoke) assigns in place, or leaves the state at once
//              (leave: the step stopped through its own signal, the loop awaiting it SUPERSEDED);
//   done       a final state: the machine's output is the job's output;
//   error      a step's error no onError handles: the lifecycle's retry policy decides, and a
//              retry resumes at the state that failed (its step runs again, the steps before it
//              do not); a guard / assign / input / output mapper that threw fails the job at
//              once (MachineActionError: machineFault.ts), resumable there by a redrive;
//   aborted    timeout / cancel / shutdown / lease lost (see settle.ts). A step's result that comes
//              after the abort is never taken (job.race has ended its wait): the ending stores the
//              state the abort found (the XState runtime stops its actor there: xstateDriver.ts).
//   waiting   a wait state (`after` delays, `on` events): the timer due first is armed in
//              memory (waitTimers.ts), and the core parks the run when none is due within
//              PARK_MIN_MS (the timers stored as XState's runtime stores them, in its order: id,
//              source and target '', the after event, the due time in Redis time); an event
//              from the inbox (offer) or the timer takes its transition, leaving the state (its
//              other timers cancelled); a resumed one whose timer is due takes its transition at
//              once, with no XState actor made (the compiled resume of a parked pipeline).
// Once the run's outcome is known (halt) no further step starts and no timer fires, whatever
// the step in flight does.

import type { AbortListener, ActiveJob, DeferredWake } from '../runtime/ActiveJob.js';
import { WALL_TIME, type AttemptHost, type StoreTime } from '../runtime/AttemptHost.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import type { AnyEvent, CompiledPipeline, CompiledState, CompiledTransition } from './compiledTable.js';
import type { CompiledStart } from './compiledStart.js';
import { TimedStep } from './timedStep.js';
import { callCompiledStep } from './compiledStep.js';
import { offerCompiled } from './compiledOffer.js';
import type { InboxEvent } from '../runtime/inboxEvent.js';
import type { Offered } from './heldEvents.js';
import { PipelineRun } from './pipelineRun.js';
import type { MachineDriver, Outcome, RunControl } from './machineDriver.js';
import { CompiledMachine, STAY, noStoredText } from './compiledMachine.js';

export class CompiledDriver extends CompiledMachine implements MachineDriver, AbortListener, DeferredWake {
  private run!: RunControl;
  /** A step is running (or about to): the loop has not ended. */
  private looping = false;
  /** The run's outcome is known: no further step starts. */
  private halted = false;
  /** A step settled or an event was taken since the run opened (see atStart). */
  private moved = false;
  /** A timed state's entry, and a timed step's race with its state's timers: made when first
   * needed (a resumed wait state, a held run's, never needs it; see `timed`). */
  private timedStep: TimedStep | undefined;
  /** The loop running now: one an event superseded (it left the step's state) does nothing more. */
  private turn = 0;
  /** The running step's own signal (a step with a timeout or events), stopped when its state is left. */
  private own: AbortController | undefined;

  constructor(
    private readonly job: ActiveJob,
    compiled: CompiledPipeline,
    from: CompiledStart | 'fresh',
    private readonly input: unknown,
    /** Redis time (StoreClock.ts), as stored due times are. */
    time: StoreTime = WALL_TIME,
    /** `<w>|<t>` of the claimed snapshot as the XState runtime keys it (storedKey). */
    storedText: () => string = noStoredText,
  ) {
    super(compiled, from, time, storedText);
  }

  /** The timed state's entry and step race (TimedStep), made on first use. */
  protected get timed(): TimedStep {
    return (this.timedStep ??= new TimedStep(this.timers, this.latest, {
      entered: (context, stepInput) => {
        this.context = context;
        this.stepInput = stepInput;
      },
      takeRaised: (w, list, ev) => {
        const before = this.failed === undefined && this.state ? this.persisted() : undefined;
        this.state = w;
        const next = this.take(list, ev, true);
        if (!next && this.failed) this.failed.lastActive = before;
        return next === STAY ? w : next; // no after is targetless
      },
      timerTaken: (eventType) => this.timerTaken(eventType),
    }));
  }

  open(run: RunControl): void {
    const { compiled, from, input } = this;
    this.run = run;
    try {
      if (from === 'fresh') {
        this.context = compiled.initialContext(input);
        this.state = compiled.states.get(compiled.initial)!;
        const init = { type: 'xstate.init', input };
        const first = this.state;
        this.stepInput = first.step?.input(this.context, init);
        if (first.wait || first.step?.after)
          this.state = this.timed.enter(first, this.context, init, this.stepInput) ?? first;
        else if (!first.step) this.output = compiled.output(this.context, first, init);
        run.log('{"type":"started"}');
      } else {
        ({ state: this.state, context: this.context, stepInput: this.stepInput } = from);
        this.timers.restore(from.timers ?? []);
        run.log('{"type":"resumed"}');
      }
    } catch (err) {
      // XState errors the machine when its context or first input cannot be computed.
      this.context ??= {};
      this.state ??= compiled.states.get(compiled.initial)!;
      this.failed = { thrown: err, lastActive: undefined, event: 'xstate.init' };
    }
  }

  /**
   * AT START (machineDriver.ts): a fresh run still in its initial state, its first step in
   * flight, nothing settled or taken. Its checkpoint (that state, its context and the step's
   * input) is what open() makes again on a fresh claim: no step's result is in it.
   */
  atStart(): boolean {
    return (
      this.from === 'fresh' &&
      !this.moved &&
      this.looping &&
      !this.failed &&
      // As the XState runtime's: a first state with a timer beside its step is written at once.
      this.timers.lastStored.length === 0 &&
      this.state === this.compiled.states.get(this.compiled.initial)
    );
  }

  start(): void {
    // The start's own wait state, logged as XState's restored (or initial) snapshot is: the core
    // checkpoints it (and parks the run when it may).
    if (this.state.wait && !this.failed) {
      this.run.entered(JSON.stringify(this.state.name), this.context);
      return this.arm();
    }
    this.runLoop();
  }

  private runLoop(): void {
    if (!this.state.step && !this.state.wait && !this.failed) {
      // A final state (a resumed wait's timer taken into it: most resumes): loop() would only
      // return `done`, settled one tick on; so it is here, without its frame and promises.
      queueMicrotask(() => this.run.settle({ kind: 'done' }));
      return;
    }
    this.looping = true;
    this.loop().then(
      (outcome) => outcome && this.run.settle(outcome),
      (err: unknown) => this.run.settle({ kind: 'error', error: err }),
    );
  }

  /** Sets the wait state's first timer running in memory (the core parks the run when it is far). */
  private arm(): void {
    if (this.halted) return;
    // No step races the job's abort now: a cancel, timeout or shutdown ends the wait here.
    if (this.job.abortError) return this.run.settle({ kind: 'aborted' });
    this.job.onAbort = this;
    this.timers.arm();
  }

  /** AbortListener, while a wait state waits (arm): a cancel, timeout or shutdown ends the wait. */
  aborted(): void {
    this.run.settle({ kind: 'aborted' });
  }

  /** The timer armed in memory (WaitTimers.armedAt): it tells the run as it fires (timerDue). */
  timerAt(): number | undefined {
    return this.timers.armedAt();
  }

  /** A timer fired (WaitTimers' owner): a timed step's (the loop takes it), or the wait state's:
   * its transition, then the machine runs on from there. The run is told then, in the same turn
   * (a held run's wait is over: ITS TIMER, heldRun.ts), once the event has been taken: what it
   * did (a move, an ending) is known. */
  timerFired(eventType: string): void {
    if (this.halted) return;
    // THE GATE (supervisor/WakeGate.ts): a held run's due timer waits its turn while the
    // worker's writes wait on the store (wakeNow takes it then).
    if (!this.job.passWake(this)) {
      this.timers.waitingTurn = eventType;
      return;
    }
    this.takeTimer(eventType);
  }

  /** DeferredWake: the held run's timer's turn came (unless its state was left meanwhile). */
  wakeNow(): void {
    const eventType = this.timers.waitingTurn;
    this.timers.waitingTurn = undefined;
    if (eventType !== undefined && !this.halted) this.takeTimer(eventType);
  }

  private takeTimer(eventType: string): void {
    try {
      if (this.timedStep?.fired(eventType)) return;
      const list = this.state.wait?.on.get(eventType);
      if (list) this.leave(list, { type: eventType });
    } finally {
      this.run.timerDue();
    }
  }

  /**
   * Takes an event of the wait state (a timer's, or one sent), or one sent to a step state while
   * its step runs: leaves the state, or errors the machine. A step state left so is left as XState
   * leaves it, at once: its step stopped after the transition's actions (its own signal; its late
   * result ignored: the loop that awaits it is SUPERSEDED), the next state entered and its step
   * started in the same turn (a next event of the same batch is offered to it).
   */
  private leave(list: CompiledTransition[], ev: AnyEvent): void {
    const next = this.take(list, ev, true);
    if (next === undefined) return; // no transition enabled: XState ignores the event
    this.moved = true;
    if (next === STAY) return this.run.markDirty(); // a targetless one: new context, same timers
    this.timers.disarm();
    this.job.onAbort = undefined;
    if (this.looping) {
      // SUPERSEDED: the loop awaiting the step does nothing more. A transition that threw (the
      // machine errored) stops nothing: the step is abandoned untold, as a timer's (loop).
      this.turn++;
      this.looping = false;
      this.timedStep?.ended();
      if (next) this.own?.abort();
    }
    if (!next) {
      const f = this.failed!;
      this.run.markDirty();
      this.run.settle({ kind: 'error', error: f.thrown, event: f.event });
      return;
    }
    this.state = next;
    this.runLoop();
  }

  /** Runs steps until a final state, a failure, an abort, or a wait state (null: the run waits). */
  private async loop(): Promise<Outcome | null> {
    const { job, run } = this;
    const turn = ++this.turn;
    try {
      while (!this.failed && this.state.step && !this.halted) {
        run.entered(JSON.stringify(this.state.name), this.context);
        run.markDirty();
        const step = this.state.step;
        let ev: AnyEvent = { type: '' };
        let list: CompiledTransition[] = [];
        /** A timer's transition was taken (as it fired): the state it entered (null: errored). */
        let timedOut = false;
        let next: CompiledState | null = null;
        // A step with a timeout or events: its actor's own signal, stopped when a timer or an
        // event leaves the state.
        const own = (this.own = step.after || step.events ? new AbortController() : undefined);
        try {
          const call = callCompiledStep(job, step, this.stepInput, own);
          const settled = step.after
            ? await job.race(this.timed.race(call))
            : { output: await job.race(call) };
          // SUPERSEDED: an event left the state (takeInStep): the run went on from there.
          if (turn !== this.turn) return null;
          if ('next' in settled) {
            timedOut = true;
            next = settled.next;
          } else {
            ev = {
              type: `xstate.done.actor.${step.invokeId}`,
              output: settled.output,
              actorId: step.invokeId,
            };
            list = step.onDone;
          }
        } catch (err) {
          if (turn !== this.turn) return null; // SUPERSEDED (the step stopped by its signal)
          if (job.abortError) return { kind: 'aborted' };
          ev = { type: `xstate.error.actor.${step.invokeId}`, error: err, actorId: step.invokeId };
          list = step.onError;
        } finally {
          if (turn === this.turn) {
            this.timedStep?.ended();
            if (own) this.timers.disarm();
          }
        }
        this.moved = true;
        if (this.halted) break;
        if (!timedOut) next = this.take(list, ev);
        // XState stops the step's actor after the transition's actions (a deferred stop, before
        // the next state's actor starts): its signal aborts, and its late result is ignored. A
        // transition that threw (the machine errored) runs no deferred stop: the step is
        // abandoned untold, as on the XState runtime.
        if (timedOut && next) own!.abort();
        if (next) this.state = next;
      }
    } finally {
      if (turn === this.turn) this.looping = false;
    }
    const f = this.failed;
    if (!f && !this.halted && this.state.wait) {
      this.run.entered(JSON.stringify(this.state.name), this.context);
      this.run.markDirty();
      this.arm();
      return null;
    }
    return f ? { kind: 'error', error: f.thrown, event: f.event } : { kind: 'done' };
  }

  /**
   * A timer of the running step's state fired (XState: its after event, guards evaluated as it
   * fires, in order): the state its first enabled transition enters (it leaves the state, whose
   * exit cancels the other timers; null: the machine errored); undefined: none is enabled, the
   * event is ignored and its timer spent (XState's scheduler has dropped it: the checkpoint it
   * makes stores the others), and the step runs on, the next timer armed.
   */
  private timerTaken(eventType: string): CompiledState | null | undefined {
    this.moved = true;
    const next = this.take(this.state.step!.after!.on.get(eventType)!, { type: eventType }, true);
    if (next !== undefined) return next === STAY ? this.state : next; // no after is targetless
    this.timers.spend(eventType);
    this.run.markDirty();
    return undefined;
  }

  // Events sent to the job are offered as the XState runtime offers them (compiledOffer.ts).
  offer(msg: InboxEvent): Offered {
    return offerCompiled(this.compiled.machine, this.state, this.context, msg, (list) => {
      if (!this.halted) this.leave(list, msg.event);
    });
  }

  /** A wait state's first due time (null: it waits on events only); undefined while a step runs. */
  parkAt(): number | null | undefined {
    return !this.looping && this.state.wait ? this.timers.parkAt() : undefined;
  }

  halt(outcome: Outcome): void {
    this.halted = true;
    this.timers.disarm();
    // The run failed while a step runs (its checkpoint cannot be stored): the step is abandoned,
    // and told so through its signal.
    if (this.looping && outcome.kind === 'error')
      this.job.abort('failed', (outcome.error as Error | undefined)?.message ?? String(outcome.error));
  }

  stop(): void {
    this.timers.disarm();
  }
}

/** Runs a compiled pipeline's attempt: the runtime core (pipelineRun.ts) driving a CompiledDriver. */
export function runCompiledPipeline(
  job: ActiveJob,
  def: PipelineDefinition,
  compiled: CompiledPipeline,
  start: CompiledStart | 'fresh',
  input: unknown,
  timeoutMs: number,
  host: AttemptHost,
  /** The events the stored snapshot holds until a state takes them (heldEvents.ts). */
  storedHeld?: unknown,
  /** `<w>|<t>` of the claimed snapshot (MachineDriver.storedKey). */
  storedText?: () => string,
): Promise<void> {
  const driver = new CompiledDriver(job, compiled, start, input, host, storedText);
  return new PipelineRun(job, def, timeoutMs, host, driver, storedHeld).run();
}
