// "What can happen next": the events a job's current state accepts, for the send form of the
// dashboard and `machinist status`. From a definition XState answers (getNextTransitions, which
// lists every transition of the active states and their ancestors, guarded ones included);
// from a graph alone (a process without the machine's code) the graph's edges answer the same.
// XState's own events (`xstate.done.actor.*`, `xstate.after.*`) and wildcards are left out:
// nobody can send them.

import { getNextTransitions, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import { machineOf } from '../pipeline/machineGraph.js';
import type { AnyDefinition } from '../runtime/registry.js';
import type { MachineGraph } from '../store/chartModel.js';
import { stateValueIds } from './stateValueIds.js';

function isGraph(v: unknown): v is MachineGraph {
  return Array.isArray((v as MachineGraph).nodes) && Array.isArray((v as MachineGraph).edges);
}

const sendable = (type: string) => type !== '' && type !== '*' && !type.startsWith('xstate.');

/**
 * The event types the state accepts, in document order, each once. `state` is a machine
 * snapshot, a persisted snapshot (`{ value, status }`) or a bare state value; a finished
 * snapshot accepts nothing.
 * @example nextEvents(approval, 'awaitingDecision') // ['APPROVE', 'REJECT']
 */
export function nextEvents(source: AnyDefinition | AnyStateMachine | MachineGraph, state: unknown): string[] {
  const s = state as { value?: unknown; status?: unknown; _nodes?: unknown } | null;
  if (s && typeof s === 'object' && typeof s.status === 'string' && s.status !== 'active') return [];
  const value = s && typeof s === 'object' && 'value' in s ? s.value : state;
  let types: string[];
  if (isGraph(source)) {
    const active = new Set(stateValueIds(source, value));
    types = source.edges.filter((e) => active.has(e.source)).map((e) => e.event);
  } else {
    const machine = machineOf(source);
    const snapshot: AnyMachineSnapshot =
      s && typeof s === 'object' && Array.isArray(s._nodes)
        ? (s as AnyMachineSnapshot)
        : machine.resolveState({ value: value as never, context: {} });
    types = getNextTransitions(snapshot).map((t) => t.eventType);
  }
  return [...new Set(types.filter(sendable))];
}
