// What `definePipeline` refuses before any job runs: every place a machine can invoke or spawn an
// actor must name logic registered in its `setup({ actors })`. XState persists a child by its
// `src` name and its id, never inline logic, so an inline child could never be restored; and an
// unregistered name either fails the machine or leaves a hole in its children that no snapshot
// can hold. Looked at: invokes (and their ids: default ids shift when a machine is edited, which
// breaks stored children), and `spawnChild` actions wherever an action can be (entry, exit, the
// transitions of events, `after`, invoke `onDone`/`onError`, `always`, initial transitions),
// named actions from `setup({ actions })` included, in the machine and in every machine
// registered as an actor. What no static check can see (a `spawn` inside an `assign`, actions
// an `enqueueActions` decides at run time) is caught when the job runs: persisted.ts and
// unregisteredActor.ts fail that one job with a clear, non-retryable error.

import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { isMachineLogic } from './parkable.js';

export class PipelineDefinitionError extends TypeError {
  readonly code = 'INVALID_PIPELINE';
  constructor(
    readonly machine: string,
    readonly state: string,
    message: string,
  ) {
    super(`definePipeline('${machine}'): ${message}`);
    this.name = 'PipelineDefinitionError';
  }
}

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

function checkSpawn(scope: Scope, state: string, what: string, action: unknown): void {
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
    checkNode(scope, m.root);
    for (const [name, logic] of Object.entries(scope.actors))
      if (isMachineLogic(logic)) visit(logic as AnyStateMachine, `actor '${name}': `);
  };
  visit(machine, '');
}
