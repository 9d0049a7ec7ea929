// Runs a compiled step-only pipeline (compileSteps.ts): the same job, the same records, the same
// log as the XState driver, without XState actors. The runtime core (pipelineRun.ts) owns the
// inbox, checkpoints, held events, the timeout and the ending; this driver (CompiledDriver)
// computes each next state and the persisted snapshot. Its modes:
//   stepping   one step of the current state runs (awaited through job.race, so timeout,
//              cancel, lease loss and shutdown end the wait at once: its aborts reach the run
//              through that race, not the job's signal, which most steps never create); its
//              result picks the transition (guards, assigns), which enters the next step's
//              state or a final one;
//   done       a final state: the machine's output is the job's output;
//   error      a step's error no onError handles: the lifecycle's retry policy decides, and a
//              retry resumes at the state that failed (its step runs again, the steps before it
//              do not); a guard / assign / input / output mapper that threw fails the job at
//              once (MachineActionError: machineFault.ts), resumable there by a redrive;
//   aborted    timeout / cancel / shutdown / lease lost (see settle.ts).
//   waiting   a wait state (one `after` delay): its timer is armed in memory, and the core parks
//              the run when it is not due within PARK_MIN_MS (the timer stored as XState's
//              runtime stores it: id, source and target '', the after event, the due time in
//              Redis time); a resumed one whose timer is due takes its transition at once,
//              with no XState actor made (the compiled resume of a parked pipeline).
// Once the run's outcome is known (halt) no further step starts and no timer fires, whatever
// the step in flight does.
//
// Checkpoints: each state entered is persisted as XState's persisted snapshot (the state, the
// context, the running step as an active child with its input). A stored snapshot is restored
// by either runtime.

import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import type { CompiledPipeline, CompiledState, CompiledTransition } from './compileSteps.js';
import { storedMachineJson, storedTimersJson } from './storedParts.js';
import { MAX_TIMER_MS, type StoredTimer } from './timers.js';
import { noTransition } from './whyIgnored.js';
import type { InboxEvent } from '../runtime/inboxEvent.js';
import type { Offered } from './heldEvents.js';
import { notOffered } from './offerEvent.js';
import { PipelineRun } from './pipelineRun.js';
import type { CheckpointParts, FailureParts, MachineDriver, Outcome, RunControl } from './machineDriver.js';

type Ctx = Record<string, unknown>;
type AnyEvent = { type: string; [k: string]: unknown };

/** Where a compiled run starts: fresh, or at a stored step state (its step runs again). */
export interface CompiledStart {
  state: CompiledState;
  context: Ctx;
  /** The step's input as stored (XState re-runs a restored invoke with its stored input). */
  stepInput: unknown;
  resumed: boolean;
  /** A wait state's stored timer (the only one it may have). */
  timer?: StoredTimer;
}

interface PersistedChild {
  snapshot?: { status?: string; input?: unknown };
  src?: unknown;
}

/**
 * The start of a compiled run from a stored machine snapshot, or null when only the XState
 * runtime can restore it (a snapshot of another shape, stored timers).
 */
export function compiledStart(
  compiled: CompiledPipeline,
  persisted: unknown,
  timers: StoredTimer[] | undefined,
  /** The snapshot was migrated: its timers are the XState runtime's to reconcile. */
  migrated = false,
): CompiledStart | 'fresh' | null {
  if (persisted === undefined) return 'fresh';
  const p = persisted as { status?: unknown; value?: unknown; context?: unknown; children?: unknown };
  if (p.status !== 'active' || typeof p.value !== 'string') return null;
  const state = compiled.states.get(p.value);
  if (!state || !p.context || typeof p.context !== 'object') return null;
  const children = (p.children ?? {}) as Record<string, PersistedChild | undefined>;
  const ids = Object.keys(children);
  const wait = state.wait;
  if (wait) {
    // A wait state restores with its own timer, exactly as the XState runtime stored it.
    const t = timers?.length === 1 ? timers[0]! : undefined;
    const ev = t?.event as { type?: unknown } | undefined;
    if (migrated || ids.length !== 0 || !t || t.id !== wait.eventType || t.source !== '' || t.target !== '')
      return null;
    if (!ev || Object.keys(ev).length !== 1 || ev.type !== wait.eventType || typeof t.dueAt !== 'number')
      return null;
    return { state, context: p.context as Ctx, stepInput: undefined, resumed: true, timer: t };
  }
  if ((timers?.length ?? 0) > 0) return null;
  const step = state.step;
  if (!step) return null;
  const child = children[step.invokeId];
  if (ids.length !== 1 || child?.snapshot?.status !== 'active' || child.src !== step.src) return null;
  return { state, context: p.context as Ctx, stepInput: child.snapshot.input, resumed: true };
}

/** XState's persisted snapshot of a machine in a step or wait state (key order as XState writes it). */
function persistedStepState(state: CompiledState, context: Ctx, input: unknown): unknown {
  const step = state.step;
  return {
    status: 'active',
    value: state.name,
    historyValue: {},
    context,
    children: step
      ? { [step.invokeId]: { snapshot: { status: 'active', input }, src: step.src, syncSnapshot: false } }
      : {},
  };
}

function callStep(fn: (args: never) => Promise<unknown>, args: unknown): Promise<unknown> {
  try {
    return Promise.resolve(fn(args as never));
  } catch (err) {
    return Promise.reject(err); // fromPromise turns a synchronous throw into a rejection too
  }
}

/** Why the machine errored; `event`: its own code threw taking that event (machineFault.ts). */
interface Failure {
  thrown: unknown;
  /** The snapshot before the transition that failed: a retry resumes from it. */
  lastActive: unknown;
  event?: string;
}

export class CompiledDriver implements MachineDriver {
  /** The first checkpoint is always written (a resumed run logs `resumed` with it anyway), but
   * a resumed wait state's: as the XState runtime, one that has not moved is not written again. */
  storedKey(): string {
    return this.from !== 'fresh' && this.from.timer ? this.storedText() : '';
  }
  private state!: CompiledState;
  private context!: Ctx;
  private stepInput: unknown;
  /** The machine's output once a final state is entered. */
  private output: unknown;
  private failed: Failure | undefined;
  private run!: RunControl;
  /** A step is running (or about to): the loop has not ended. */
  private looping = false;
  /** The run's outcome is known: no further step starts. */
  private halted = false;
  /** The wait state's timer while in one (its due time in Redis time). */
  private timer: StoredTimer | undefined;
  /** The in-memory timer of a wait state. */
  private armed: NodeJS.Timeout | undefined;
  /** The timer, due already when armed: it fires at the next immediate (see arm). */
  private armedNow: NodeJS.Immediate | undefined;
  /** The timers the last checkpoint stored (what a failure stores, as the XState runtime's). */
  private lastTimers: StoredTimer[] = [];

  constructor(
    private readonly job: ActiveJob,
    private readonly compiled: CompiledPipeline,
    private readonly from: CompiledStart | 'fresh',
    private readonly input: unknown,
    /** Redis time (StoreClock.ts), as stored due times are. */
    private readonly now: () => number = Date.now,
    /** `<w>|<t>` of the claimed snapshot as the XState runtime keys it (storedKey). */
    private readonly storedText: () => string = () => '',
  ) {}

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
        if (first.wait) this.state = this.enterWait(first, this.context, init) ?? first;
        else if (!first.step) this.output = compiled.output(this.context, first, init);
        run.log('{"type":"started"}');
      } else {
        ({ state: this.state, context: this.context, stepInput: this.stepInput } = from);
        this.timer = from.timer;
        if (from.timer) this.lastTimers = [from.timer];
        run.log('{"type":"resumed"}');
      }
    } catch (err) {
      // XState errors the machine when its context or first input cannot be computed.
      this.context ??= {};
      this.state ??= compiled.states.get(compiled.initial)!;
      this.failed = { thrown: err, lastActive: undefined, event: 'xstate.init' };
    }
  }

  timerDueAtStart(): boolean {
    // As the XState runtime: a restored timer already due fires at once (setTimeout 0).
    return this.from !== 'fresh' && this.from.timer !== undefined && this.from.timer.dueAt <= this.now();
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
    this.looping = true;
    this.loop().then(
      (outcome) => outcome && this.run.settle(outcome),
      (err: unknown) => this.run.settle({ kind: 'error', error: err }),
    );
  }

  /**
   * Enters wait state `w` with `context` (XState's entry raise): its timer, or its transition at
   * once when its delay is not a number (XState raises it in the same macrostep). Returns the
   * state the machine is in then (null: the machine errored). A delay that throws changes nothing.
   */
  private enterWait(w: CompiledState, context: Ctx, ev: AnyEvent): CompiledState | null {
    const wait = w.wait!;
    const delay = wait.delay(context, ev);
    this.context = context;
    this.stepInput = undefined;
    if (typeof delay === 'number') {
      this.timer = {
        id: wait.eventType,
        source: '',
        target: '',
        event: { type: wait.eventType },
        dueAt: Math.round(this.now() + delay),
      };
      return w;
    }
    const before = this.failed === undefined && this.state ? this.persisted() : undefined;
    this.timer = undefined;
    this.state = w;
    const next = this.take(wait.transitions, { type: wait.eventType });
    if (!next && this.failed) this.failed.lastActive = before;
    return next;
  }

  /** Sets the wait state's timer running in memory (the core parks the run when it is far). */
  private arm(): void {
    const t = this.timer;
    if (!t || this.halted) return;
    // No step races the job's abort now: a cancel, timeout or shutdown ends the wait here.
    if (this.job.abortError) return this.run.settle({ kind: 'aborted' });
    this.job.onAbort = () => this.run.settle({ kind: 'aborted' });
    const ms = Math.max(0, t.dueAt - this.now());
    // DUE AT ONCE: a timer due already (a resumed pipeline's, most of them) fires at the next
    // immediate, not at a setTimeout(0), which Node holds for at least 1 ms: with a claim of 50
    // woken jobs in hand and the next claim's round trip in flight, that millisecond left the
    // worker idle. Still after the start's synchronous work, and before the start's first flush
    // (a timer, pipelineRun.ts), as setTimeout(0) was.
    if (ms === 0) this.armedNow = setImmediate(this.fire);
    // Past setTimeout's range Node fires at once (TimeoutOverflowWarning): such a timer is not
    // armed, and the run parks (it is due far beyond PARK_MIN_MS), as the XState runtime's does.
    else if (ms <= MAX_TIMER_MS) this.armed = setTimeout(this.fire, ms);
  }

  /** The wait state's timer fired: its transition, then the machine runs on from there. */
  private readonly fire = (): void => {
    this.armed = undefined;
    this.armedNow = undefined;
    const wait = this.state.wait;
    if (this.halted || !wait) return;
    this.job.onAbort = undefined;
    const next = this.take(wait.transitions, { type: wait.eventType });
    if (!next) {
      const f = this.failed!;
      this.run.markDirty();
      this.run.settle({ kind: 'error', error: f.thrown, event: f.event });
      return;
    }
    this.state = next;
    this.runLoop();
  };

  /** Runs steps until a final state, a failure, an abort, or a wait state (null: the run waits). */
  private async loop(): Promise<Outcome | null> {
    const { job, run } = this;
    const c = job.claimed;
    try {
      while (!this.failed && this.state.step && !this.halted) {
        run.entered(JSON.stringify(this.state.name), this.context);
        run.markDirty();
        const step = this.state.step;
        let ev: AnyEvent;
        let list: CompiledTransition[];
        try {
          const stepOutput = await job.race(
            callStep(step.fn, {
              input: this.stepInput,
              // Getters: a step that never reads them costs no AbortController and no closure.
              get signal(): AbortSignal {
                return job.signal;
              },
              get progress(): (value: unknown) => void {
                return job.progress;
              },
              // As the XState runtime's step(): jobId:invokePath:attempt.
              idempotencyKey: `${c.id}:${step.invokeId}:${c.attempt}`,
              jobId: c.id,
              attempt: c.attempt,
            }),
          );
          ev = { type: `xstate.done.actor.${step.invokeId}`, output: stepOutput, actorId: step.invokeId };
          list = step.onDone;
        } catch (err) {
          if (job.abortError) return { kind: 'aborted' };
          ev = { type: `xstate.error.actor.${step.invokeId}`, error: err, actorId: step.invokeId };
          list = step.onError;
        }
        if (this.halted) break;
        const next = this.take(list, ev);
        if (next) this.state = next;
      }
    } finally {
      this.looping = false;
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

  /** Takes the first enabled transition of `list` (the step's onDone or onError); returns the
   * state entered (null: the machine errored). */
  private take(list: CompiledTransition[], ev: AnyEvent): CompiledState | null {
    // The snapshot a retry resumes from is made only when the transition fails: until the last
    // line of the try nothing of the run changes, so it is the one before the transition then.
    try {
      const t = list.find((tr) => tr.guard === null || tr.guard(this.context, ev));
      if (!t) {
        // XState: an error event no transition handles errors the machine.
        this.failed = { thrown: ev.error, lastActive: this.persisted() };
        return null;
      }
      let next = this.context;
      for (const assign of t.assigns) next = assign(next, ev);
      const target = this.compiled.states.get(t.target)!;
      const nextInput = target.step ? target.step.input(next, ev) : undefined;
      // Entering a wait state resolves its delay (XState's entry raise) in the same transition.
      if (target.wait) return this.enterWait(target, next, ev);
      this.timer = undefined;
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

  private persisted(): unknown {
    return persistedStepState(this.state, this.context, this.stepInput);
  }

  status(): string {
    return this.failed ? 'error' : this.state.step || this.state.wait ? 'active' : 'done';
  }

  value(): unknown {
    return this.state.name;
  }

  // No state of a compiled machine accepts an event (it has no `on`), and its only children are
  // its steps' promise actors: events sent to the job are logged as the XState runtime would
  // (ignored; sent to a running step named by `to`, which takes none; held when `to` names an
  // actor not running now and the sender asked to wait until one takes it).
  offer(msg: InboxEvent): Offered {
    if (msg.to === undefined)
      return { taken: false, missing: false, never: true, ...noTransition(msg.event.type) };
    if (msg.to === this.state.step?.invokeId) return { taken: true, send: () => {} };
    return { taken: false, missing: true, reason: `no actor at '${msg.to}'` };
  }

  notOffered(texts: readonly string[]): string[] {
    return notOffered(texts, { status: this.status(), value: this.state.name });
  }

  private timers(): StoredTimer[] {
    return this.timer ? [this.timer] : [];
  }

  checkpoint(): CheckpointParts {
    const w = storedMachineJson(this.persisted());
    const timers = (this.lastTimers = this.timers());
    return { w, t: storedTimersJson(timers), state: JSON.stringify(this.state.name), context: this.context };
  }

  /** A wait state's due time (nothing runs then); undefined while a step runs. */
  parkAt(): number | undefined {
    return !this.looping && this.state.wait && this.timer ? this.lastTimers[0]?.dueAt : undefined;
  }

  rejected(): boolean {
    return false; // the machine errors on a step's rejection only when no onError takes it
  }

  halt(outcome: Outcome): void {
    this.halted = true;
    this.disarm();
    // The run failed while a step runs (its checkpoint cannot be stored): the step is abandoned,
    // and told so through its signal.
    if (this.looping && outcome.kind === 'error')
      this.job.abort('failed', (outcome.error as Error | undefined)?.message ?? String(outcome.error));
  }

  done(): { output: unknown; persisted: unknown; value: unknown } {
    const { output, state, context } = this;
    const persisted = { status: 'done', output, value: state.name, historyValue: {}, context, children: {} };
    return { output, value: state.name, persisted };
  }

  park(): { w: string; t: string; state: string; value: unknown } {
    const value = this.state.name;
    const w = storedMachineJson(this.persisted());
    return { w, t: storedTimersJson(this.timers()), state: JSON.stringify(value), value };
  }

  /** What the XState runtime stores: the running state when aborted, the errored machine else
   * (nothing when the run failed because its snapshot cannot be stored). */
  failure(outcome: Outcome): FailureParts {
    const { failed, state, context } = this;
    const value = state.name;
    const timers = this.lastTimers;
    if (outcome.kind !== 'error')
      return { persisted: this.persisted(), lastActive: undefined, timers, value };
    if (!failed) return { persisted: undefined, lastActive: undefined, timers, value };
    const persisted = {
      status: 'error',
      error: failed.thrown,
      value,
      historyValue: {},
      context,
      children: {},
    };
    return { persisted, lastActive: failed.lastActive, timers, value };
  }

  stop(): void {
    this.disarm();
  }

  private disarm(): void {
    clearTimeout(this.armed);
    clearImmediate(this.armedNow);
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
  const driver = new CompiledDriver(job, compiled, start, input, host.now, storedText);
  return new PipelineRun(job, def, timeoutMs, host, driver, storedHeld).run();
}
