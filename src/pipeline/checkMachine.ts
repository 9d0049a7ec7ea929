// What `definePipeline` refuses before any job runs: every place a machine can invoke or spawn an
// actor must name logic registered in its `setup({ actors })`. XState persists a child by its
// `src` name and its id, never inline logic, so an inline child could never be restored; and an
// unregistered name either fails the machine or leaves a hole in its children that no snapshot
// can hold. Looked at: invokes (and their ids: default ids shift when a machine is edited, which
// breaks stored children), and `spawnChild` actions wherever an action can be (entry, exit, the
// transitions of events, `after`, invoke `onDone`/`onError`, `always`, initial transitions),
// named actions from `setup({ actions })` included, in the machine and in every machine
// registered as an actor; and what the source of an `assign`, an `enqueueActions` or the
// context factory shows it spawns (a literal name, or inline logic written in place). What no
// static check can see (a spawn through a variable) is caught when the job runs: persisted.ts
// and unregisteredActor.ts fail that one job with a clear, non-retryable error.

import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { isMachineLogic } from './parkable.js';
import { PipelineDefinitionError } from '../errors.js';

interface Scope {
  /** The pipeline's name, for the error. */
  pipeline: string;
  actors: Record<string, unknown>;
  actions: Record<string, unknown>;
  /** '' for the pipeline's machine; `actor 'x' ` for a machine registered as an actor. */
  within: string;
}

const implementationsOf = (machine: AnyStateMachine) =>
  (machine as { implementations?: { actors?: Record<string, unknown>; actions?: Record<string, unknown> } })
    .implementations ?? {};

/** A `spawnChild` action's src, if the action is one. */
function spawnSrc(action: unknown): { src: unknown } | undefined {
  const a = action as { type?: unknown; src?: unknown } | null;
  if (typeof action === 'function' && a?.type === 'xstate.spawnChild') return { src: a.src };
  return undefined;
}

// XState's own logic creators, and step(): what a spawn of inline logic starts with.
const INLINE_LOGIC =
  /\bspawn(?:Child)?\s*\(\s*(?:fromPromise|fromCallback|fromObservable|fromEventObservable|fromTransition|createMachine|setup|step)\b/;
const NAMED = /\bspawn(?:Child)?\s*\(\s*(['"`])([^'"`]*)\1/g;

/**
 * What a function's source shows it spawns (`spawn('x')` in an assign, `enqueue.spawnChild('x')`
 * in an enqueueActions, `spawn(fromPromise(...))`). A heuristic over the text: it sees literal
 * names and inline logic written in place, not a spawn through a variable or a renamed `spawn`
 * (those are caught when the job runs), and it is only ever used to refuse what would fail.
 */
function spawnsInSource(fn: unknown): { names: string[]; inline: boolean } {
  if (typeof fn !== 'function') return { names: [], inline: false };
  let text: string;
  try {
    text = Function.prototype.toString.call(fn);
  } catch {
    return { names: [], inline: false };
  }
  const names = [...text.matchAll(NAMED)].map((m) => m[2]!);
  return { names, inline: INLINE_LOGIC.test(text) };
}

/** The user functions of an action whose bodies may spawn: an assign's, an enqueueActions'. */
function spawningFunctions(action: unknown): { kind: string; fns: unknown[] } | undefined {
  const a = action as { type?: unknown; assignment?: unknown; collect?: unknown } | null;
  if (typeof action !== 'function') return undefined;
  if (a?.type === 'xstate.assign') {
    const assignment = a.assignment;
    const fns =
      typeof assignment === 'function'
        ? [assignment]
        : assignment && typeof assignment === 'object'
          ? Object.values(assignment)
          : [];
    return { kind: 'an assign', fns };
  }
  if (a?.type === 'xstate.enqueueActions') return { kind: 'an enqueueActions', fns: [a.collect] };
  return undefined;
}

function checkSourceSpawns(scope: Scope, state: string, what: string, kind: string, fns: unknown[]): void {
  for (const fn of fns) {
    const found = spawnsInSource(fn);
    if (found.inline) {
      throw new PipelineDefinitionError(
        scope.pipeline,
        state,
        `${scope.within}${what} spawns inline actor logic in ${kind}, which cannot be persisted; register it in setup({ actors }) and spawn it by name`,
      );
    }
    for (const name of found.names) {
      if (!(name in scope.actors)) {
        throw new PipelineDefinitionError(
          scope.pipeline,
          state,
          `${scope.within}${what} spawns '${name}' in ${kind}, which is not registered in setup({ actors })`,
        );
      }
    }
  }
}

function checkSpawn(scope: Scope, state: string, what: string, action: unknown): void {
  const inBody = spawningFunctions(action);
  if (inBody) checkSourceSpawns(scope, state, what, inBody.kind, inBody.fns);
  const spawn = spawnSrc(action);
  if (!spawn) return;
  if (typeof spawn.src !== 'string') {
    throw new PipelineDefinitionError(
      scope.pipeline,
      state,
      `${scope.within}${what} spawns inline actor logic, which cannot be persisted; register it in setup({ actors }) and spawn it by name`,
    );
  }
  if (!(spawn.src in scope.actors)) {
    throw new PipelineDefinitionError(
      scope.pipeline,
      state,
      `${scope.within}${what} spawns '${spawn.src}', which is not registered in setup({ actors })`,
    );
  }
}

function checkInvokes(scope: Scope, node: AnyStateNode, where: string): void {
  for (const inv of node.invoke as { src: unknown; id?: string }[]) {
    const raw = (node.config.invoke ? ([] as unknown[]).concat(node.config.invoke) : []) as {
      src?: unknown;
      id?: unknown;
    }[];
    const cfg = raw.find((r) => r.src === inv.src || r.id === inv.id);
    if (typeof cfg?.src !== 'string') {
      throw new PipelineDefinitionError(
        scope.pipeline,
        node.id,
        `${scope.within}${where} invokes inline actor logic; register it in setup({ actors: { myStep: ... } }) and invoke it by name ({ src: 'myStep' }) so it can be persisted`,
      );
    }
    if (!(cfg.src in scope.actors)) {
      throw new PipelineDefinitionError(
        scope.pipeline,
        node.id,
        `${scope.within}${where} invokes '${cfg.src}', which is not registered in setup({ actors })`,
      );
    }
    if (typeof cfg.id !== 'string' || cfg.id.length === 0) {
      throw new PipelineDefinitionError(
        scope.pipeline,
        node.id,
        `${scope.within}${where} invokes '${cfg.src}' without an explicit id; add { id: '...' } (default ids shift when the machine is edited and break stored jobs)`,
      );
    }
  }
}

function checkNode(scope: Scope, node: AnyStateNode): void {
  const where = `state '${node.id}'`;
  checkInvokes(scope, node, where);
  const n = node as AnyStateNode & {
    always?: { actions?: unknown[] }[];
    initial?: { actions?: unknown[] };
  };
  const actions: unknown[] = [...(n.entry ?? []), ...(n.exit ?? []), ...(n.initial?.actions ?? [])];
  for (const list of n.transitions.values()) for (const t of list) actions.push(...(t.actions ?? []));
  for (const t of n.always ?? []) actions.push(...(t.actions ?? []));
  // A named action (a string or `{ type }`) is checked with all of setup({ actions }).
  for (const action of actions) checkSpawn(scope, node.id, where, action);
  for (const child of Object.values(node.states) as AnyStateNode[]) checkNode(scope, child);
}

/**
 * Checks a pipeline's machine and every machine registered in a `setup({ actors })` below it;
 * throws PipelineDefinitionError naming the state and what to change.
 */
export function checkMachine(pipeline: string, machine: AnyStateMachine): void {
  const seen = new Set<object>();
  const visit = (m: AnyStateMachine, within: string) => {
    if (seen.has(m)) return;
    seen.add(m);
    const impl = implementationsOf(m);
    const scope: Scope = {
      pipeline,
      actors: impl.actors ?? {},
      actions: impl.actions ?? {},
      within,
    };
    // Every named action, used or not: one that spawns what cannot run is a bug either way.
    for (const [name, action] of Object.entries(scope.actions))
      checkSpawn(scope, m.root.id, `action '${name}'`, action);
    const context = (m.config as { context?: unknown }).context;
    if (typeof context === 'function')
      checkSourceSpawns(scope, m.root.id, 'the machine', 'the context', [context]);
    checkNode(scope, m.root);
    for (const [name, logic] of Object.entries(scope.actors))
      if (isMachineLogic(logic)) visit(logic as AnyStateMachine, `actor '${name}': `);
  };
  visit(machine, '');
}
