// Compiles a step-only pipeline machine into a table its runner walks without XState actors.
//
// Why: an XState actor costs ~150 us of worker CPU for a 3-step no-op pipeline (an `Actor` per
// invoke even in a pure transition, abort signals, inspection plumbing; bench/RESULTS.md), five
// times BullMQ's whole worker per job. Most pipelines are a chain of steps with `assign`s on the
// way, and for those the transitions can be taken directly.
//
// THE EXACT-COMPILE RULE: a machine is compiled only when every construct in it is one this
// compiler (this file, and compileTransitions.ts for its transitions) reproduces exactly as XState
// would, and its stored snapshots are XState's persisted snapshots (the full runtime restores what
// this one stored, and back; test/pipeline/behaviour.test.ts proves both
// give the same records). Anything else (nesting, parallel or history states, `on` events
// anywhere but on a wait or a step state, `after` anywhere but on a wait or a step state, a wait state's
// `after` list ending guarded (the state would wait on with its timer spent: one more mode of
// the wait for a rare form), `always`, entry/exit
// actions, actions other than `assign`, built-in guard combinators, invokes of anything but a
// `step`, wildcard event descriptors, transitions without a target but a wait state's events') leaves the machine to the
// XState runtime, and `explainNotCompiled` says which construct decided it. The machine stays
// the definition and the chart.
//
// Supported, with XState's semantics: top-level atomic states that each invoke one registered
// `step` (input mapper or value), with or without a timeout: `after` delays beside the invoke (as
// a wait state's, below; the invoke is spawned first, its timers made on entry and stored as the
// XState runtime stores them, the one due first armed in memory: a running step never parks; a
// timer that fires first takes its transition and then stops the step as XState stops an invoked
// actor, its signal aborted and its late result ignored; a delay's list may end guarded: a timer
// none of whose guards is enabled (evaluated as it fires, in order) is ignored, spent, and the
// step runs on; `on` events beside the invoke, as a wait state's: one without a target assigns
// and the step runs on, one with a target leaves the state, the step stopped as a timer stops it;
// a step that settles first leaves the
// state, whose exit cancels the timers; a restore re-runs the step with its stored input, the
// timers keeping their stored due times); top-level atomic wait states, with no invoke, that wait on
// `after` delays (numbers or named delays, each delay's list ending unguarded: the first timer
// due leaves the state and its exit cancels the others; the run parks there, its timers stored
// as the XState runtime stores them), on `on` events (guarded or not; an event no enabled
// transition takes is ignored, as XState ignores it; one without a target runs its assigns and
// stays, its timers running on), or both; `onDone` / `onError` / `after` /
// `on` transitions (lists, guards inline or named
// with params, `assign` actions inline or named with params, in order), final states with
// `output`, the root's `context` (function or object) and `output`. An error no `onError`
// handles errors the machine; an `onDone` list must end with an unguarded transition (else the
// state could be left waiting on nothing, which only the full runtime models).

import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { stepFunctionOf } from './step.js';
import type {
  AnyEvent,
  CompiledDelay,
  CompiledPipeline,
  CompiledState,
  CompiledTransition,
  CompiledWait,
  Ctx,
} from './compiledTable.js';
import { compileTransitions, spawnerOf } from './compileTransitions.js';
import { NotCompilable, refuse } from './notCompilable.js';

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

// XState's resolveOutput: a mapper gets { context, event, self }; anything else is the value.
// `self` is the running actor in XState; a compiled run has none (documented in README).
function resolveOutput(mapper: unknown, context: Ctx, event: AnyEvent): unknown {
  return typeof mapper === 'function' ? mapper({ context, event, self: undefined }) : mapper;
}

/** An `on` descriptor this file reproduces: one event type, no wildcard, none of XState's own. */
function plainDescriptor(where: string, descriptor: string): void {
  if (descriptor === '*' || descriptor.endsWith('.*')) refuse(`${where}: on '${descriptor}' (a wildcard)`);
  if (descriptor.startsWith('xstate.')) refuse(`${where}: on '${descriptor}' (an XState event)`);
}

/**
 * A state's `after` delays and their transitions, in XState's entry order. A wait state's list
 * must end unguarded (the first timer due leaves the state and its exit cancels the others); a
 * step state's may not (`guardedEnd`: a timer none of whose transitions is enabled is ignored
 * while its step runs on).
 * XState's `after` puts one raise per delay on entry and one cancel on exit: a state with any
 * other entry or exit action is refused, as is `always`.
 */
function compileAfter(
  machine: AnyStateMachine,
  node: AnyStateNode,
  where: string,
  states: Set<string>,
  guardedEnd = false,
): CompiledWait {
  const after = (node.after ?? []) as unknown as { delay: unknown; eventType: string }[];
  if ((node.always?.length ?? 0) > 0) refuse(`${where}: always`);
  const delayCount = Object.keys((node.config.after ?? {}) as object).length;
  if (node.entry.length !== delayCount || node.exit.length !== delayCount)
    refuse(`${where}: entry/exit actions`);
  const on = new Map<string, CompiledTransition[]>();
  const delays: CompiledDelay[] = [];
  for (const a of after) {
    if (on.has(a.eventType)) continue; // one entry per transition: a delay's list is compiled once
    const transitions = compileTransitions(machine, node, a.eventType, states);
    if (transitions.length === 0 || (!guardedEnd && transitions[transitions.length - 1]!.guard !== null))
      refuse(`${where}: after must end with an unguarded transition`);
    on.set(a.eventType, transitions);
    delays.push({ eventType: a.eventType, delay: compileDelay(machine, where, a.delay) });
  }
  return { delays, on };
}

/**
 * A state with no invoke that waits on `after` delays and/or `on` events; null: not such a
 * state. An event's list may be guarded (none enabled: the event is ignored).
 */
function compileWait(
  machine: AnyStateMachine,
  node: AnyStateNode,
  where: string,
  states: Set<string>,
): CompiledWait | null {
  const after = (node.after ?? []) as unknown as unknown[];
  const onKeys = Object.keys((node.config.on ?? {}) as object);
  if ((after.length === 0 && onKeys.length === 0) || node.type !== 'atomic') return null;
  if (node.invoke.length > 0) return null; // a step state, with a timeout or events (below)
  const { delays, on } = compileAfter(machine, node, where, states);
  for (const key of onKeys) {
    plainDescriptor(where, key);
    on.set(key, compileTransitions(machine, node, key, states, true));
  }
  for (const key of node.transitions.keys()) if (!on.has(key)) refuse(`${where}: handles '${key}'`);
  return { delays, on };
}

function compileDelay(machine: AnyStateMachine, where: string, delay: unknown): CompiledDelay['delay'] {
  if (typeof delay === 'number') return () => delay;
  const impl = ((machine.implementations.delays ?? {}) as Record<string, unknown>)[delay as string];
  if (typeof impl === 'number') return () => impl;
  if (typeof impl === 'function')
    // XState's resolveRaise: a delay function gets { context, event, self, system }.
    return (context, event) =>
      (impl as (a: unknown, p: unknown) => unknown)(
        { context, event, self: undefined, system: undefined },
        undefined,
      );
  refuse(`${where}: after '${String(delay)}' names no delay`);
}

function checkPlainNode(node: AnyStateNode, where: string): void {
  // `after` first: its timers are entry/exit actions too.
  if ((node.after?.length ?? 0) > 0) refuse(`${where}: after`);
  if ((node.always?.length ?? 0) > 0) refuse(`${where}: always`);
  if ((node.entry?.length ?? 0) > 0 || (node.exit?.length ?? 0) > 0) refuse(`${where}: entry/exit actions`);
}

function compile(machine: AnyStateMachine): CompiledPipeline {
  const root = machine.root;
  if (root.type !== 'compound') refuse('the root is not a compound state');
  checkPlainNode(root, 'the root');
  if (root.invoke.length > 0) refuse('the root invokes');
  if (root.transitions.size > 0) refuse('the root has transitions');
  const actors = (machine.implementations.actors ?? {}) as Record<string, unknown>;
  const children = Object.values(root.states) as AnyStateNode[];
  const names = new Set(children.map((n) => n.key));
  const states = new Map<string, CompiledState>();
  for (const node of children) {
    const where = `state '${node.key}'`;
    const wait = compileWait(machine, node, where, names);
    if (wait) {
      states.set(node.key, {
        name: node.key,
        nodeId: node.id,
        node,
        step: null,
        wait,
        finalOutput: undefined,
      });
      continue;
    }
    const timed = node.type === 'atomic' && (node.after?.length ?? 0) > 0;
    if (!timed) checkPlainNode(node, where);
    if (node.type === 'final') {
      if (node.invoke.length > 0 || node.transitions.size > 0) refuse(`${where}: a final state with invokes`);
      states.set(node.key, {
        name: node.key,
        nodeId: node.id,
        node,
        step: null,
        wait: null,
        finalOutput: node.output,
      });
      continue;
    }
    if (node.type !== 'atomic') refuse(`${where}: ${node.type} state`);
    if (node.invoke.length !== 1) refuse(`${where}: invokes ${node.invoke.length} actors (1 needed)`);
    const inv = node.invoke[0] as { id: string; src: unknown; input?: unknown; systemId?: string };
    const cfg = asArray(node.config.invoke as { src?: unknown } | { src?: unknown }[])[0];
    const src = cfg?.src;
    const fn = typeof src === 'string' ? stepFunctionOf(actors[src]) : undefined;
    if (typeof src !== 'string' || !fn) refuse(`${where}: invokes something other than a registered step()`);
    if (inv.systemId !== undefined) refuse(`${where}: invoke with a systemId`);
    const done = `xstate.done.actor.${inv.id}`;
    const error = `xstate.error.actor.${inv.id}`;
    // A step with a timeout: its after delays, as a wait state's (the invoke is spawned first).
    const after = timed ? compileAfter(machine, node, where, names, true) : null;
    // Events beside the invoke: taken while the step runs (one with a target stops it).
    let events: Map<string, CompiledTransition[]> | null = null;
    for (const key of Object.keys((node.config.on ?? {}) as object)) {
      plainDescriptor(where, key);
      (events ??= new Map()).set(key, compileTransitions(machine, node, key, names, true));
    }
    for (const key of node.transitions.keys())
      if (key !== done && key !== error && !after?.on.has(key) && !events?.has(key))
        refuse(`${where}: handles '${key}'`);
    const onDone = compileTransitions(machine, node, done, names);
    if (onDone.length === 0 || onDone[onDone.length - 1]!.guard !== null)
      refuse(`${where}: onDone must end with an unguarded transition`);
    const mapper = inv.input;
    states.set(node.key, {
      name: node.key,
      nodeId: node.id,
      node,
      finalOutput: undefined,
      wait: null,
      step: {
        invokeId: inv.id,
        src,
        fn,
        // XState's spawnChild: an input mapper gets { context, event, self }.
        input:
          typeof mapper === 'function'
            ? (context, event) => (mapper as (a: unknown) => unknown)({ context, event, self: undefined })
            : () => mapper,
        onDone,
        onError: compileTransitions(machine, node, error, names),
        after,
        events,
      },
    });
  }
  const init = root.initial as unknown as
    { target?: readonly AnyStateNode[]; actions?: readonly unknown[] } | undefined;
  if (!init?.target || init.target.length !== 1 || (init.actions?.length ?? 0) > 0)
    refuse('the initial transition is not one plain state');
  const initial = init.target[0]!.key;
  const contextConfig = machine.config.context as unknown;
  return {
    machine,
    initial,
    states,
    initialContext(input) {
      // XState's getInitialSnapshot: a context function's result is assigned onto {}.
      if (typeof contextConfig === 'function')
        return Object.assign<Ctx, Ctx>(
          {},
          (contextConfig as (a: unknown) => Ctx)({ input, spawn: spawnerOf(machine), self: undefined }),
        );
      return (contextConfig as Ctx | undefined) ?? {};
    },
    output(context, final, event) {
      if (root.output === undefined) return undefined;
      const doneState: AnyEvent = {
        type: `xstate.done.state.${final.nodeId}`,
        output:
          final.finalOutput !== undefined ? resolveOutput(final.finalOutput, context, event) : undefined,
      };
      return resolveOutput(root.output, context, doneState);
    },
  };
}

/** The compiled form, or null when the machine needs the full XState runtime. */
export function compileSteps(machine: AnyStateMachine): CompiledPipeline | null {
  try {
    return compile(machine);
  } catch (err) {
    if (err instanceof NotCompilable) return null;
    throw err;
  }
}

/** Why a machine is not compiled (null when it is): for tests and debugging. */
export function explainNotCompiled(machine: AnyStateMachine): string | null {
  try {
    compile(machine);
    return null;
  } catch (err) {
    if (err instanceof NotCompilable) return err.message;
    throw err;
  }
}
