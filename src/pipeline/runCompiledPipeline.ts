// Runs a compiled step-only pipeline (compileSteps.ts): the same job, the same records, the same
// log as runPipeline, without XState actors. Its modes:
//   stepping   one step of the current state runs (awaited through job.race, so timeout,
//              cancel, lease loss and shutdown end the wait at once); its result picks the
//              transition (guards, assigns), which enters the next step's state or a final one;
//   done       a final state: the machine's output is the job's output;
//   error      a step's error no onError handles: the lifecycle's retry policy decides, and a
//              retry resumes at the state that failed (its step runs again, the steps before it
//              do not); a guard / assign / input / output mapper that threw fails the job at
//              once (MachineActionError: machineFault.ts), resumable there by a redrive;
//   aborted    timeout / cancel / shutdown / lease lost (see settle.ts).
// It never parks: every non-final state runs a step, so there is always code running.
//
// Checkpoints: each state entered is persisted as XState's persisted snapshot (the state, the
// context, the running step as an active child with its input), coalesced to one write per
// turn of the event loop and not awaited (a crash before one is written only re-runs the step
// it covered; the idempotency key is the same). THE FENCE holds as everywhere: every write
// carries the lease token. A stored snapshot is restored by either runtime.

import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import { successPath } from '../runtime/lifecycle.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import type { CompiledPipeline, CompiledState, CompiledTransition } from './compileSteps.js';
import { writePipelineDone, writePipelineFailure } from './pipelineEnding.js';
import { CheckpointWriter } from './checkpointWriter.js';
import { toStoredJson } from '../runtime/storedJson.js';
import { noTransition } from './whyIgnored.js';
import { parseInboxEvent, type InboxEvent } from '../runtime/inboxEvent.js';
import { HeldEvents, type Offered } from './heldEvents.js';
import { pipelineError } from './unregisteredActor.js';
import { machineFault } from './machineFault.js';

type Ctx = Record<string, unknown>;
type AnyEvent = { type: string; [k: string]: unknown };

/** Where a compiled run starts: fresh, or at a stored step state (its step runs again). */
export interface CompiledStart {
  state: CompiledState;
  context: Ctx;
  /** The step's input as stored (XState re-runs a restored invoke with its stored input). */
  stepInput: unknown;
  resumed: boolean;
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
  timers: unknown[] | undefined,
): CompiledStart | 'fresh' | null {
  if (persisted === undefined) return 'fresh';
  if ((timers?.length ?? 0) > 0) return null;
  const p = persisted as { status?: unknown; value?: unknown; context?: unknown; children?: unknown };
  if (p.status !== 'active' || typeof p.value !== 'string') return null;
  const state = compiled.states.get(p.value);
  const step = state?.step;
  if (!state || !step || !p.context || typeof p.context !== 'object') return null;
  const children = (p.children ?? {}) as Record<string, PersistedChild | undefined>;
  const ids = Object.keys(children);
  const child = children[step.invokeId];
  if (ids.length !== 1 || child?.snapshot?.status !== 'active' || child.src !== step.src) return null;
  return { state, context: p.context as Ctx, stepInput: child.snapshot.input, resumed: true };
}

/** XState's persisted snapshot of a machine in a step state (key order as XState writes it). */
function persistedStepState(state: CompiledState, context: Ctx, input: unknown): unknown {
  const step = state.step!;
  return {
    status: 'active',
    value: state.name,
    historyValue: {},
    context,
    children: {
      [step.invokeId]: { snapshot: { status: 'active', input }, src: step.src, syncSnapshot: false },
    },
  };
}

function callStep(fn: (args: never) => Promise<unknown>, args: unknown): Promise<unknown> {
  try {
    return Promise.resolve(fn(args as never));
  } catch (err) {
    return Promise.reject(err); // fromPromise turns a synchronous throw into a rejection too
  }
}

export async function runCompiledPipeline(
  job: ActiveJob,
  def: PipelineDefinition,
  compiled: CompiledPipeline,
  start: CompiledStart | 'fresh',
  input: unknown,
  timeoutMs: number,
  host: AttemptHost,
  /** The events the stored snapshot holds until a state takes them (heldEvents.ts). */
  storedHeld?: unknown,
): Promise<void> {
  const c = job.claimed;
  const life = successPath(c.attempt, c.maxAttempts, false).claimed;
  job.timeoutMs = timeoutMs;
  job.deadline = performance.now() + timeoutMs;

  let state: CompiledState;
  let context: Ctx;
  let stepInput: unknown;
  /** The machine's output once a final state is entered. */
  let output: unknown;
  const held = new HeldEvents(storedHeld);
  const checkpoints = new CheckpointWriter(job, '', held.text());
  let inboxConsumed = c.inbox;
  let flushScheduled = false;
  let finished = false;
  /** Why the machine errored; `unstorable`: its snapshot cannot be stored, so none is; `event`:
   * the machine's own code threw taking that event (machineFault.ts). */
  let failure: { thrown: unknown; lastActive: unknown; unstorable?: boolean; event?: string } | undefined;

  const persisted = () => persistedStepState(state, context, stepInput);
  const flush = () => {
    flushScheduled = false;
    if (finished || failure) return;
    // Runs from setImmediate: a throw here would kill the worker and every job in it. A context
    // that cannot be stored fails this job alone, for good: the step in flight is abandoned.
    let wText: string;
    try {
      wText = toStoredJson(persisted(), 'snapshot', '');
    } catch (err) {
      failure = { thrown: err, lastActive: undefined, unstorable: true };
      job.abort('failed', (err as Error).message);
      return;
    }
    held.retry(offer, host.now(), checkpoints.pending);
    checkpoints.write(life, wText, '[]', JSON.stringify(state.name), context, inboxConsumed, held.text());
    held.wakeAtExpiry(host.now(), markDirty);
  };
  const markDirty = () => {
    if (flushScheduled || finished) return;
    flushScheduled = true;
    setImmediate(flush);
  };
  // No state of a compiled machine accepts an event (it has no `on`), and its only children are
  // its steps' promise actors: events sent to the job are logged as the XState runtime would
  // (ignored; sent to a running step named by `to`, which takes none; held when `to` names an
  // actor not running now and the sender asked to wait until one takes it).
  const offer = (msg: InboxEvent): Offered => {
    if (msg.to === undefined)
      return { taken: false, missing: false, never: true, ...noTransition(msg.event.type) };
    if (msg.to === state.step?.invokeId) return { taken: true, send: () => {} };
    return { taken: false, missing: true, reason: `no actor at '${msg.to}'` };
  };
  let inboxRead: Promise<void> | undefined;
  const readInbox = () => {
    if (finished) return;
    inboxRead = (inboxRead ?? Promise.resolve()).then(async () => {
      try {
        const texts = await host.readInbox(c.id, inboxConsumed);
        if (finished) return;
        for (const text of texts) {
          inboxConsumed++;
          const msg = parseInboxEvent(text);
          if (!msg) {
            checkpoints.pending.push(JSON.stringify({ type: 'event-ignored', reason: 'not JSON' }));
            continue;
          }
          held.receive(msg, offer, host.now(), checkpoints.pending, state.name);
        }
        if (texts.length > 0) markDirty();
      } catch (err) {
        host.log.warn(
          { err, jobId: c.id },
          'reading inbox failed; the job will read it again when it runs next',
        );
      }
    });
  };

  /** Takes the first enabled transition of `list` (the step's onDone or onError); returns the
   * state entered (null: the machine errored). */
  const take = (list: CompiledTransition[], ev: AnyEvent): CompiledState | null => {
    const lastActive = persisted();
    try {
      const t = list.find((tr) => tr.guard === null || tr.guard(context, ev));
      if (!t) {
        // XState: an error event no transition handles errors the machine.
        failure = { thrown: ev.error, lastActive };
        return null;
      }
      let next = context;
      for (const assign of t.assigns) next = assign(next, ev);
      const target = compiled.states.get(t.target)!;
      const nextInput = target.step ? target.step.input(next, ev) : undefined;
      // Entering a final state computes the machine's output in the same transition.
      if (!target.step) output = compiled.output(next, target, ev);
      context = next;
      stepInput = nextInput;
      return target;
    } catch (err) {
      failure = { thrown: err, lastActive, event: ev.type };
      return null;
    }
  };

  try {
    if (start === 'fresh') {
      context = compiled.initialContext(input);
      state = compiled.states.get(compiled.initial)!;
      const init = { type: 'xstate.init', input };
      stepInput = state.step?.input(context, init);
      if (!state.step) output = compiled.output(context, state, init);
      checkpoints.pending.push('{"type":"started"}');
    } else {
      ({ state, context, stepInput } = start);
      checkpoints.pending.push('{"type":"resumed"}');
    }
  } catch (err) {
    // XState errors the machine when its context or first input cannot be computed.
    context ??= {};
    state ??= compiled.states.get(compiled.initial)!;
    failure = { thrown: err, lastActive: undefined, event: 'xstate.init' };
  }
  job.onInbox = readInbox;
  if (c.hasInbox || job.inboxSignal) readInbox();

  while (!failure && state!.step) {
    checkpoints.entered(JSON.stringify(state!.name), context);
    markDirty();
    const step = state!.step;
    let ev: AnyEvent;
    let list: CompiledTransition[];
    try {
      const stepOutput = await job.race(
        callStep(step.fn, {
          input: stepInput,
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
      if (job.abortError) break; // failed to checkpoint, or aborted
      ev = { type: `xstate.error.actor.${step.invokeId}`, error: err, actorId: step.invokeId };
      list = step.onError;
    }
    const next = take(list, ev);
    if (next) state = next;
  }
  finished = true;
  job.onInbox = undefined;
  job.deadline = 0;
  await inboxRead;
  held.stop();

  // A final state reached wins over an abort that came after it: the work is done.
  if (!failure && !state!.step) {
    held.dropAll(checkpoints.pending);
    return writePipelineDone(job, life, def, timeoutMs, {
      output,
      value: state!.name,
      log: checkpoints.pending,
      persisted: {
        status: 'done',
        output,
        value: state!.name,
        historyValue: {},
        context: context!,
        children: {},
      },
    });
  }
  const aborted = !failure; // the loop left a step state only by an abort or a failure
  const thrown = aborted
    ? job.signal.reason
    : failure!.event === undefined
      ? pipelineError(failure!.thrown)
      : machineFault(pipelineError(failure!.thrown), false, {
          jobId: c.id,
          machine: def.name,
          state: state!.name,
          event: failure!.event,
        });
  await writePipelineFailure(job, life, def, timeoutMs, {
    thrown,
    // What the XState runtime stores: the running state when aborted, the errored machine else.
    persisted: aborted
      ? persisted()
      : failure!.unstorable
        ? undefined
        : {
            status: 'error',
            error: failure!.thrown,
            value: state!.name,
            historyValue: {},
            context,
            children: {},
          },
    lastActive: aborted ? undefined : failure!.lastActive,
    timers: [],
    stateText: JSON.stringify(state!.name),
    log: checkpoints.pending,
    heldText: checkpoints.lastHeld,
  });
}
