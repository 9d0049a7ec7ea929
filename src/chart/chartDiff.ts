// What changed between two versions of a machine, state by state: what a redeploy with
// `migrate` has to map. States are matched by their full id; of the rest, a state removed and
// one added are taken as one state renamed when they look the same from outside: the same
// parent id, the same kind, and the same transitions in and out (each by its label and the id
// of the state at its other end; transitions to or from states that are not in both versions
// are left out: they changed anyway). A
// heuristic: when several states match one another, none is paired; the children of a renamed
// compound state (their ids change with it) show as removed and added.

import type { MachineGraph } from '../store/chartModel.js';
import { edgeLabel } from './edgeLabel.js';

export interface ChartDiff {
  machine: string;
  from: number;
  to: number;
  /** In `to` only. */
  added: string[];
  /** In `from` only. */
  removed: string[];
  /** A state of `from` that is, by the heuristic above, this state of `to`. */
  renamed: { from: string; to: string }[];
  /** In both, by id. */
  kept: string[];
}

/** The state's transitions as seen from outside: `out LABEL -> id` and `in LABEL <- id`. */
function signature(graph: MachineGraph, id: string, common: Set<string>): string {
  const node = graph.nodes.find((n) => n.id === id)!;
  const end = (other: string) => (other === id ? 'self' : common.has(other) ? other : null);
  const parts = [`kind ${node.kind}`, `parent ${node.parent ?? ''}`];
  for (const e of graph.edges) {
    const targets = e.targets.length ? e.targets : [e.source];
    if (e.source === id)
      for (const t of targets) if (end(t) !== null) parts.push(`out ${edgeLabel(e)} -> ${end(t)}`);
    for (const t of targets)
      if (t === id && e.source !== id && end(e.source) !== null)
        parts.push(`in ${edgeLabel(e)} <- ${end(e.source)}`);
  }
  return parts.sort().join('\n');
}

/**
 * @example chartDiff(machineGraph(v1), machineGraph(v2)) // { added, removed, renamed, kept }
 */
export function chartDiff(from: MachineGraph, to: MachineGraph): ChartDiff {
  const a = new Set(from.nodes.map((n) => n.id));
  const b = new Set(to.nodes.map((n) => n.id));
  const kept = [...b].filter((id) => a.has(id));
  const common = new Set(kept);
  const removed = [...a].filter((id) => !b.has(id));
  const added = [...b].filter((id) => !a.has(id));
  const bySig = (graph: MachineGraph, ids: string[]) => {
    const m = new Map<string, string[]>();
    for (const id of ids) {
      const s = signature(graph, id, common);
      m.set(s, [...(m.get(s) ?? []), id]);
    }
    return m;
  };
  const gone = bySig(from, removed);
  const came = bySig(to, added);
  const renamed: ChartDiff['renamed'] = [];
  for (const [sig, ids] of gone) {
    const match = came.get(sig);
    if (ids.length === 1 && match?.length === 1) renamed.push({ from: ids[0]!, to: match[0]! });
  }
  const paired = new Set(renamed.flatMap((r) => [r.from, r.to]));
  return {
    machine: to.name,
    from: from.version,
    to: to.version,
    added: added.filter((id) => !paired.has(id)),
    removed: removed.filter((id) => !paired.has(id)),
    renamed,
    kept,
  };
}
