// Whether a stored machine snapshot can be restored on this definition: every state its value
// names must exist, in the root machine and in each invoked or spawned child machine, and so
// must every state its history states remember (`historyValue`, by id). XState does not check on
// restore: it builds a snapshot it cannot run and fails later with an error that names nothing
// useful, on every retry; and it drops a remembered id it does not know, so a return to the
// history state goes to the initial child, silently. Checked before each restore (a few
// property lookups per active state), so such a job fails at once with UNKNOWN_STATE.

import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { isMachineLogic } from './parkable.js';

export interface MissingState {
  /** The state, as a dotted path from its machine's root. */
  state: string;
  /** The invoke path of the child machine it belongs to; '' for the root. */
  child: string;
  /** The state is one a history state remembers (`state` is then its id), not an active one. */
  history?: true;
}

interface PersistedNode {
  value?: unknown;
  historyValue?: Record<string, { id?: unknown }[] | undefined>;
  children?: Record<string, { src?: unknown; snapshot?: PersistedNode } | undefined>;
}

function missingIn(node: AnyStateNode, value: unknown, path: string): string | null {
  const states = node.states as Record<string, AnyStateNode | undefined>;
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (typeof value === 'string') return Object.hasOwn(states, value) ? null : at(value);
  if (value && typeof value === 'object') {
    for (const [key, sub] of Object.entries(value)) {
      const child = Object.hasOwn(states, key) ? states[key] : undefined;
      if (!child) return at(key);
      const missing = missingIn(child, sub, at(key));
      if (missing) return missing;
    }
  }
  return null;
}

/** The first id in a persisted `historyValue` (its history states and what they remember) that
 * `machine` has no state for, resolved as XState resolves them on restore. */
function missingRemembered(machine: AnyStateMachine, history: PersistedNode['historyValue']): string | null {
  if (!history || typeof history !== 'object') return null;
  const known = (id: unknown) => {
    if (typeof id !== 'string') return false;
    try {
      machine.getStateNodeById(id);
      return true;
    } catch {
      return false;
    }
  };
  for (const [key, items] of Object.entries(history)) {
    if (!known(key)) return key;
    for (const item of Array.isArray(items) ? items : []) if (!known(item?.id)) return String(item?.id);
  }
  return null;
}

/** The first state `persisted` is in that `machine` (or a child machine of it) lacks, or null. */
export function missingState(machine: AnyStateMachine, persisted: unknown, child = ''): MissingState | null {
  const p = persisted as PersistedNode | undefined;
  if (!p || typeof p !== 'object') return null;
  const state = missingIn(machine.root, p.value, '');
  if (state) return { state, child };
  const remembered = missingRemembered(machine, p.historyValue);
  if (remembered) return { state: remembered, child, history: true };
  const actors = (machine.implementations.actors ?? {}) as Record<string, unknown>;
  for (const [id, c] of Object.entries(p.children ?? {})) {
    const logic = typeof c?.src === 'string' && Object.hasOwn(actors, c.src) ? actors[c.src] : undefined;
    if (!isMachineLogic(logic) || !c?.snapshot) continue;
    const found = missingState(logic as AnyStateMachine, c.snapshot, child ? `${child}/${id}` : id);
    if (found) return found;
  }
  return null;
}
