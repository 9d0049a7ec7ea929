// A pipeline definition's fingerprint: what must not change while jobs stored by it exist
// under the same name and version. It hashes the shape of the machine, and of each child
// machine registered in setup({ actors }): per state node its key, type, initial target,
// history, tags, invokes (id and src) and transitions (event type, targets; `after` delays are
// transitions too). That is what a stored snapshot and its timers refer to. Code does not
// count (a step's body, a guard's or an assign's implementation may change freely), nor do
// fields of XState's definition JSON outside that list, so an XState upgrade that adds one
// does not make every machine look changed.

import { createHash } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';
import { isMachineLogic } from './parkable.js';

/** JSON with object keys sorted (arrays keep their order: state and transition order matter). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

interface DefinitionNode {
  key?: string;
  type?: string;
  initial?: { target?: unknown[] };
  history?: unknown;
  tags?: unknown[];
  invoke?: { id?: unknown; src?: unknown }[];
  on?: Record<string, { target?: unknown[] }[]>;
  states?: Record<string, DefinitionNode>;
}

/** The parts of a state node's definition JSON a stored job depends on. */
function shape(node: DefinitionNode): unknown {
  return {
    key: node.key,
    type: node.type,
    initial: node.initial?.target ?? [],
    history: node.history ?? false,
    tags: node.tags ?? [],
    invoke: (node.invoke ?? []).map((i) => ({ id: i.id, src: i.src })),
    on: Object.fromEntries(
      Object.entries(node.on ?? {}).map(([event, ts]) => [event, ts.map((t) => t.target ?? [])]),
    ),
    states: Object.fromEntries(Object.entries(node.states ?? {}).map(([k, n]) => [k, shape(n)])),
  };
}

/** The machine's shape and its child machines', by actor name, as one document. */
function definitions(
  machine: AnyStateMachine,
  out: Record<string, unknown>,
  path: string,
  seen: Set<object>,
): void {
  seen.add(machine);
  out[path] = shape(JSON.parse(JSON.stringify(machine.definition)) as DefinitionNode);
  const actors = (machine.implementations.actors ?? {}) as Record<string, unknown>;
  for (const [name, logic] of Object.entries(actors)) {
    if (isMachineLogic(logic) && !seen.has(logic as object))
      definitions(logic as AnyStateMachine, out, path ? `${path}/${name}` : name, seen);
  }
}

/** A short hash of the machine's shape; undefined when its definition cannot be serialized. */
export function machineFingerprint(machine: AnyStateMachine): string | undefined {
  try {
    const docs: Record<string, unknown> = {};
    definitions(machine, docs, '', new Set());
    return createHash('sha256').update(canonical(docs)).digest('hex').slice(0, 16);
  } catch {
    return undefined;
  }
}
