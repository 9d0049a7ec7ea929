// Builds the chart model of a registered definition from XState's own node tree (machine.root,
// StateNode.states, .transitions, .always, .invoke), not from the machine's config: the tree is
// what runs, with targets resolved and `after` delays turned into the events XState sends.

import type { AnyStateMachine } from 'xstate';
import { jobMachine } from '../../machines/job.js';
import type { AnyDefinition } from '../runtime/registry.js';
import { fanOut } from './fanOut.js';
import { stepFunctionOf } from './step.js';
import { guardName } from './whyIgnored.js';
import type {
  EdgeKind,
  GraphEdge,
  GraphInvoke,
  GraphNode,
  MachineGraph,
  StateKind,
} from '../store/chartModel.js';

/** The parts of XState's StateNode this reads (its types are generic beyond use here). */
interface NodeLike {
  id: string;
  key: string;
  type: string;
  parent?: NodeLike;
  states: Record<string, NodeLike>;
  initial?: { target?: NodeLike[] };
  transitions: Map<string, TransitionLike[]>;
  always?: TransitionLike[];
  invoke: { id: string; src: unknown }[];
  tags: string[];
  description?: string;
  machine: { implementations: { actors: Record<string, unknown> } };
}

interface TransitionLike {
  eventType: string;
  target?: NodeLike[];
  guard?: unknown;
  delay?: unknown;
  reenter?: boolean;
}

const built = new WeakMap<object, MachineGraph>();

/**
 * The chart model of a definition from defineJob (drawn as the shared lifecycle, machines/job.ts)
 * or definePipeline (its own machine), or of a bare XState machine. Built once per definition.
 * @example const graph = machineGraph(approvalPipeline(services)); graph.nodes.map((n) => n.id)
 */
export function machineGraph(definition: AnyDefinition | AnyStateMachine): MachineGraph {
  let graph = built.get(definition);
  if (graph) return graph;
  const isDefinition = 'kind' in definition && (definition.kind === 'job' || definition.kind === 'pipeline');
  const machine = machineOf(definition);
  const name = isDefinition ? (definition as AnyDefinition).name : machine.id;
  const version = isDefinition ? (definition as AnyDefinition).version : 1;
  const kind = isDefinition ? (definition as AnyDefinition).kind : 'machine';
  graph = graphOfMachine(machine, name, version, kind);
  built.set(definition, graph);
  return graph;
}

/** The XState machine a definition runs: a pipeline's own, the shared lifecycle for a simple job. */
export function machineOf(source: AnyDefinition | AnyStateMachine): AnyStateMachine {
  if ('kind' in source && source.kind === 'pipeline')
    return (source as unknown as { machine: AnyStateMachine }).machine;
  if ('kind' in source && source.kind === 'job') return jobMachine;
  return source;
}

/** The chart model of an XState machine under a given name and version. */
export function graphOfMachine(
  machine: AnyStateMachine,
  name: string,
  version: number,
  kind: MachineGraph['kind'] = 'machine',
  /** Machines being drawn around this one: a machine invoking itself is drawn once. */
  drawing: ReadonlySet<unknown> = new Set(),
): MachineGraph {
  const inside = new Set([...drawing, machine]);
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const visit = (node: NodeLike) => {
    const children = Object.values(node.states);
    nodes.push({
      id: node.id,
      key: node.key,
      parent: node.parent?.id ?? null,
      kind: stateKind(node.type),
      children: children.map((c) => c.id),
      initial: node.type === 'compound' ? (node.initial?.target?.[0]?.id ?? null) : null,
      invokes: node.invoke.map((inv) => invokeOf(node, inv, name, version, inside)),
      tags: [...node.tags],
      ...(node.description ? { description: node.description } : {}),
    });
    let index = 0;
    for (const list of node.transitions.values())
      for (const t of list) edges.push(edgeOf(node, t, index++, false));
    for (const t of node.always ?? []) edges.push(edgeOf(node, t, index++, true));
    for (const child of children) visit(child);
  };
  visit(machine.root as unknown as NodeLike);
  return { name, version, kind, root: machine.root.id, nodes, edges };
}

function stateKind(type: string): StateKind {
  return type === 'compound' || type === 'parallel' || type === 'final' || type === 'history'
    ? type
    : 'atomic';
}

function invokeOf(
  node: NodeLike,
  inv: { id: string; src: unknown },
  name: string,
  version: number,
  drawing: ReadonlySet<unknown>,
): GraphInvoke {
  const src = typeof inv.src === 'string' ? inv.src : 'inline';
  const logic = typeof inv.src === 'string' ? node.machine.implementations.actors[inv.src] : inv.src;
  const kind = logic === fanOut ? 'fanOut' : stepFunctionOf(logic) ? 'step' : 'actor';
  const out: GraphInvoke = { id: inv.id, src, kind };
  if (kind === 'actor' && isMachine(logic) && !drawing.has(logic)) {
    out.machine = graphOfMachine(logic, `${name}/${inv.id}`, version, 'machine', drawing);
  }
  return out;
}

function isMachine(logic: unknown): logic is AnyStateMachine {
  const m = logic as { root?: unknown; getStateNodeById?: unknown } | null;
  return typeof m === 'object' && m !== null && !!m.root && typeof m.getStateNodeById === 'function';
}

const AFTER = 'xstate.after.';
const DONE_ACTOR = 'xstate.done.actor.';
const ERROR_ACTOR = 'xstate.error.actor.';
const DONE_STATE = 'xstate.done.state.';

function edgeOf(node: NodeLike, t: TransitionLike, index: number, always: boolean): GraphEdge {
  const event = always ? '' : t.eventType;
  let kind: EdgeKind = 'event';
  let actor: string | undefined;
  if (always) kind = 'always';
  else if (event.startsWith(AFTER)) kind = 'after';
  else if (event.startsWith(DONE_ACTOR)) [kind, actor] = ['done', event.slice(DONE_ACTOR.length)];
  else if (event.startsWith(ERROR_ACTOR)) [kind, actor] = ['error', event.slice(ERROR_ACTOR.length)];
  else if (event.startsWith(DONE_STATE)) [kind, actor] = ['state-done', event.slice(DONE_STATE.length)];
  const edge: GraphEdge = {
    id: `${node.id}:${index}`,
    source: node.id,
    targets: (t.target ?? []).map((n) => n.id),
    event,
    kind,
  };
  if (actor !== undefined) edge.actor = actor;
  if (t.guard !== undefined) edge.guard = guardName(t.guard);
  if (kind === 'after' && (typeof t.delay === 'number' || typeof t.delay === 'string')) edge.delay = t.delay;
  if (t.reenter) edge.reenter = true;
  return edge;
}

/** A state by id (undefined when the graph has none). */
export function nodeById(graph: MachineGraph, id: string): GraphNode | undefined {
  return graph.nodes.find((n) => n.id === id);
}
