// A state value (`'awaitingDecision'`, `{ review: { left: 'a', right: 'b' } }`) as the full ids
// of the states it makes active, ancestors included: how a stored snapshot or an audit entry
// is matched to the chart. Children are looked up by key under their parent, so a state with a
// custom `id` is found as well.

import type { MachineGraph } from '../store/chartModel.js';

function childIndex(graph: MachineGraph): Map<string, string> {
  const index = new Map<string, string>();
  for (const n of graph.nodes) if (n.parent !== null) index.set(`${n.parent}\u0000${n.key}`, n.id);
  return index;
}

/** Every state active under `value`, the root first; keys the graph does not have are left out. */
export function stateValueIds(graph: MachineGraph, value: unknown): string[] {
  const index = childIndex(graph);
  const out: string[] = [graph.root];
  const walk = (parent: string, v: unknown) => {
    if (typeof v === 'string') {
      const id = index.get(`${parent}\u0000${v}`);
      if (id) out.push(id);
    } else if (v && typeof v === 'object') {
      for (const [key, sub] of Object.entries(v as Record<string, unknown>)) {
        const id = index.get(`${parent}\u0000${key}`);
        if (!id) continue;
        out.push(id);
        walk(id, sub);
      }
    }
  };
  walk(graph.root, value);
  return out;
}

/** The innermost of those: the active states with no active child. */
export function leafStateIds(graph: MachineGraph, value: unknown): string[] {
  const ids = stateValueIds(graph, value);
  const set = new Set(ids);
  const parents = new Set(
    graph.nodes.filter((n) => set.has(n.id) && n.parent !== null).map((n) => n.parent as string),
  );
  return ids.filter((id) => !parents.has(id));
}
