// A pipeline definition's fingerprint: what must not change while jobs stored by it exist
// under the same name and version. It hashes the machine's definition (states, transitions,
// invokes by src and id, delays, tags: what a stored snapshot refers to) and the definitions
// of the child machines registered in setup({ actors }), with object keys sorted. Code does
// not count: a step's body, a guard's or an assign's implementation may change freely.

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

/** The machine's definition and its child machines', by actor name, as one document. */
function definitions(
  machine: AnyStateMachine,
  out: Record<string, unknown>,
  path: string,
  seen: Set<object>,
): void {
  seen.add(machine);
  out[path] = machine.definition;
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
