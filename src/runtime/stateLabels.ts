// Metric labels and span names for a job's machine and states, taken from the registered
// definitions only: a name no definition has is 'other', so no label can grow with what is
// stored or sent (a foreign producer's machine name, a snapshot from some other version).
//
// A state's label is the dotted path of its state value ('review.legal'); inside a parallel
// state, the path of that parallel state (its regions are not multiplied out); '(root)' for a
// machine whose root is parallel.

import type { AnyStateMachine, AnyStateNode } from 'xstate';
import type { AnyDefinition } from './registry.js';

export const OTHER = 'other';
const ROOT = '(root)';
/** A simple job's states are its lifecycle's. */
const SIMPLE_STATES: ReadonlySet<string> = new Set(['loading', 'working', 'done', 'failed', 'cancelled']);
/** Most distinct state values remembered per definition (parallel machines can have many). */
const MAX_CACHED = 1000;

interface DefinitionLabels {
  known: ReadonlySet<string>;
  /** State value JSON -> label, so a state seen before costs no JSON.parse. */
  byText: Map<string, string>;
}

const perDefinition = new WeakMap<object, DefinitionLabels>();

function statePaths(machine: AnyStateMachine): Set<string> {
  const paths = new Set<string>([ROOT]);
  const walk = (node: AnyStateNode) => {
    for (const child of Object.values(node.states as Record<string, AnyStateNode>)) {
      paths.add(child.path.join('.'));
      walk(child);
    }
  };
  walk(machine.root);
  return paths;
}

function labelsOf(def: AnyDefinition): DefinitionLabels {
  let l = perDefinition.get(def);
  if (!l) {
    const machine = (def as { machine?: AnyStateMachine }).machine;
    const known = def.kind === 'pipeline' && machine?.root ? statePaths(machine) : SIMPLE_STATES;
    perDefinition.set(def, (l = { known, byText: new Map() }));
  }
  return l;
}

/** The dotted path of a state value down to its first parallel state (or leaf). */
export function valuePath(value: unknown): string {
  let out = '';
  let v = value;
  for (;;) {
    if (typeof v === 'string') return out ? `${out}.${v}` : v;
    if (!v || typeof v !== 'object') return out || ROOT;
    const keys = Object.keys(v);
    if (keys.length !== 1) return out || ROOT;
    out = out ? `${out}.${keys[0]}` : keys[0]!;
    v = (v as Record<string, unknown>)[keys[0]!];
  }
}

/** The label of a machine name: itself when registered, else 'other'. */
export function machineLabel(def: AnyDefinition | undefined): string {
  return def ? def.name : OTHER;
}

/** The label of a state value given as JSON text: a state of `def`'s machine, else 'other'. */
export function stateLabel(def: AnyDefinition | undefined, valueText: string): string {
  if (!def) return OTHER;
  const l = labelsOf(def);
  let label = l.byText.get(valueText);
  if (label !== undefined) return label;
  let path: string;
  try {
    path = valuePath(JSON.parse(valueText));
  } catch {
    path = OTHER;
  }
  label = l.known.has(path) ? path : OTHER;
  if (l.byText.size < MAX_CACHED) l.byText.set(valueText, label);
  return label;
}
