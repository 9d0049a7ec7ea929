// The transitions of a compiled pipeline (compileSteps.ts): a state's list for one event, each
// with its guard and `assign` actions compiled to plain functions. Apart from the compiler of the
// states because it is the part that reproduces XState's action and guard semantics: a guard is
// called as XState calls it (inline or named, with params) and its throw reported in XState's
// words; an assign is XState's resolveAssign (the update merged into a copy of the context); an
// assign's `spawn` fails as a spawn in a compiled run must. Anything else (a built-in guard
// combinator, an action other than assign, a target that is not one other top-level state,
// reenter) is refused (NotCompilable), which leaves the machine to the XState runtime.

import type { AnyStateMachine, AnyStateNode } from 'xstate';
import type { AnyEvent, CompiledTransition, Ctx } from './compiledTable.js';
import { inlineChildError } from './persisted.js';
import { NonRetryableError } from '../errors.js';
import { CODE } from '../errorCodes.js';
import { refuse } from './notCompilable.js';

function compileGuard(
  machine: AnyStateMachine,
  where: string,
  guard: unknown,
  nodeId: string,
): CompiledTransition['guard'] {
  if (guard === undefined) return null;
  const impls = (machine.implementations.guards ?? {}) as Record<string, unknown>;
  const isInline = typeof guard === 'function';
  const name = typeof guard === 'string' ? guard : (guard as { type?: string }).type;
  const resolved = isInline ? guard : impls[name!];
  if (typeof resolved !== 'function' || 'check' in resolved)
    refuse(
      `${where}: guard ${isInline ? '(inline)' : `'${name}'`} is a built-in combinator or not a function`,
    );
  const params = isInline || typeof guard === 'string' ? undefined : (guard as { params?: unknown }).params;
  const fn = resolved as (args: { context: Ctx; event: AnyEvent }, params: unknown) => boolean;
  const label = isInline ? '' : `'${name}' `;
  return (context, event) => {
    try {
      return Boolean(
        fn({ context, event }, typeof params === 'function' ? params({ context, event }) : params),
      );
    } catch (err) {
      // As XState reports a guard that threw, without a cause as it has none: the job's error
      // is the same on both runtimes.
      // eslint-disable-next-line preserve-caught-error
      throw new Error(
        `Unable to evaluate guard ${label}in transition for event '${event.type}' in state node '${nodeId}':\n${(err as Error)?.message}`,
      );
    }
  };
}

function compileAction(
  machine: AnyStateMachine,
  where: string,
  action: unknown,
): CompiledTransition['assigns'][0] {
  const impls = (machine.implementations.actions ?? {}) as Record<string, unknown>;
  let resolved = action;
  let params: unknown;
  if (typeof action === 'string') resolved = impls[action];
  else if (action && typeof action === 'object' && typeof (action as { type?: unknown }).type === 'string') {
    resolved = impls[(action as { type: string }).type];
    params = (action as { params?: unknown }).params;
  }
  const a = resolved as
    (((...x: unknown[]) => unknown) & { type?: string; assignment?: unknown }) | undefined;
  if (typeof a !== 'function' || a.type !== 'xstate.assign' || a.assignment === undefined)
    refuse(`${where}: an action other than assign`);
  const assignment: unknown = a.assignment;
  const noSpawn = spawnerOf(machine);
  // XState's resolveAssign: the update is merged into a copy of the context.
  return (context, event) => {
    const args = { context, event, spawn: noSpawn, self: undefined, system: undefined };
    const p = typeof params === 'function' ? params({ context, event }) : params;
    let partial: Ctx;
    if (typeof assignment === 'function') partial = (assignment as (x: unknown, p: unknown) => Ctx)(args, p);
    else {
      partial = {};
      for (const key of Object.keys(assignment as Ctx)) {
        const v = (assignment as Ctx)[key];
        partial[key] = typeof v === 'function' ? (v as (x: unknown, p: unknown) => unknown)(args, p) : v;
      }
    }
    return Object.assign({}, context, partial);
  };
}

/** The `spawn` an assign of a compiled machine gets: a compiled run has no child actors. */
export function spawnerOf(machine: AnyStateMachine): (src: unknown) => never {
  const actors = (machine.implementations.actors ?? {}) as Record<string, unknown>;
  return (src) => {
    // XState would spawn it, then fail to store it (persisted.ts): the same error here.
    if (typeof src !== 'string') throw inlineChildError();
    // XState's own error (its text, which unregisteredActor.ts turns into the job's error).
    if (!(src in actors)) throw new Error(`Actor logic '${src}' not implemented in machine '${machine.id}'`);
    // XState would spawn it; no compiled run can, and no check at definition could tell.
    throw new NonRetryableError(
      `an assign spawns '${src}', which a compiled pipeline cannot run; pass compile: false to definePipeline`,
      { code: CODE.SPAWN_IN_COMPILED_PIPELINE },
    );
  };
}

export function compileTransitions(
  machine: AnyStateMachine,
  node: AnyStateNode,
  eventType: string,
  states: Set<string>,
  /** An event's list of a wait state: a transition without a target runs its assigns in place. */
  targetless = false,
): CompiledTransition[] {
  const list = (node.transitions.get(eventType) ?? []) as unknown as {
    target?: readonly AnyStateNode[];
    guard?: unknown;
    actions?: readonly unknown[];
    reenter?: boolean;
  }[];
  return list.map((t, i) => {
    const where = `state '${node.key}' ${eventType}[${i}]`;
    const target = t.target ?? [];
    if (target.length === 0 && targetless) {
      // XState takes no transition then (can() is false): no log of it is reproduced here.
      if ((t.actions?.length ?? 0) === 0) refuse(`${where}: a forbidden transition (no target, no actions)`);
      if (t.reenter) refuse(`${where}: reenter`);
      return {
        target: null,
        guard: compileGuard(machine, where, t.guard, node.id),
        assigns: t.actions!.map((a) => compileAction(machine, where, a)),
      };
    }
    if (target.length !== 1 || target[0]!.parent !== machine.root || !states.has(target[0]!.key))
      refuse(`${where}: target is not one top-level state`);
    if (target[0] === node) refuse(`${where}: a transition to its own state`);
    if (t.reenter) refuse(`${where}: reenter`);
    return {
      target: target[0]!.key,
      guard: compileGuard(machine, where, t.guard, node.id),
      assigns: (t.actions ?? []).map((a) => compileAction(machine, where, a)),
    };
  });
}
