// A chart as Graphviz DOT: compound and parallel states as clusters (parallel regions dashed),
// an initial dot in each compound state, final states as double boxes. An edge to or from a
// compound state is drawn to its cluster through the cluster's dot (compound=true, lhead/ltail).
// A job's marks fill the active and visited states and thicken the transitions taken.

import type { ChartMarks, GraphNode, MachineGraph } from '../store/chartModel.js';
import { edgeLabel } from './edgeLabel.js';

const q = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
const anchor = (id: string) => `${id}::dot`;

export function toDot(graph: MachineGraph, marks?: ChartMarks): string {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const active = new Set(marks?.active ?? []);
  const stopped = new Set(marks?.stopped ?? []);
  const lines = [
    `digraph ${q(`${graph.name}@${graph.version}`)} {`,
    '  compound=true;',
    '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=11];',
    '  edge [fontname="Helvetica", fontsize=10];',
  ];
  const fill = (id: string) =>
    active.has(id)
      ? ', style="rounded,filled,bold", fillcolor="#fde68a", color="#b45309"'
      : stopped.has(id)
        ? ', style="rounded,filled,bold,dashed", fillcolor="#fee2e2", color="#b91c1c"'
        : marks?.visits[id]
          ? ', style="rounded,filled", fillcolor="#dbeafe"'
          : '';
  const labelOf = (n: GraphNode) => {
    const visits = marks?.visits[n.id];
    const lines = [n.key + (visits ? ` ×${visits}` : ''), ...n.invokes.map((i) => `${i.kind} ${i.id}`)];
    return lines.join('\n');
  };
  const emit = (n: GraphNode, indent: string) => {
    if (n.children.length === 0) {
      const shape = n.kind === 'final' ? ', peripheries=2' : n.kind === 'history' ? ', shape=circle' : '';
      lines.push(`${indent}${q(n.id)} [label=${q(labelOf(n))}${shape}${fill(n.id)}];`);
      return;
    }
    const region = n.parent !== null && byId.get(n.parent)?.kind === 'parallel';
    lines.push(`${indent}subgraph ${q(`cluster_${n.id}`)} {`);
    const inner = `${indent}  `;
    lines.push(`${inner}label=${q(labelOf(n))}; style=${region ? 'dashed' : 'rounded'};`);
    if (active.has(n.id)) lines.push(`${inner}color="#b45309"; penwidth=2;`);
    else if (stopped.has(n.id)) lines.push(`${inner}color="#b91c1c"; penwidth=2;`);
    // Every cluster has a dot: the initial marker, or an invisible anchor for edges to it.
    lines.push(
      `${inner}${q(anchor(n.id))} [shape=point, width=0.12, label=""${n.initial ? '' : ', style=invis'}];`,
    );
    for (const c of n.children) emit(byId.get(c)!, inner);
    if (n.initial) lines.push(`${inner}${q(anchor(n.id))} -> ${q(n.initial)}${end(n.initial)};`);
    lines.push(`${indent}}`);
  };
  // An endpoint that is a cluster is reached through its dot.
  const isCluster = (id: string) => (byId.get(id)?.children.length ?? 0) > 0;
  const point = (id: string) => q(isCluster(id) ? anchor(id) : id);
  const end = (id: string) => (isCluster(id) ? ` [lhead=${q(`cluster_${id}`)}]` : '');
  const within = (id: string, ancestor: string) => {
    for (let n = byId.get(id); n; n = n.parent ? byId.get(n.parent) : undefined)
      if (n.id === ancestor) return true;
    return false;
  };
  emit(byId.get(graph.root)!, '  ');
  for (const e of graph.edges) {
    for (const t of e.targets.length ? e.targets : [e.source]) {
      const attrs = [`label=${q(edgeLabel(e))}`];
      // Graphviz refuses ltail when the head is inside the tail's cluster (a root `on` to a child).
      if (isCluster(e.source) && !within(t, e.source)) attrs.push(`ltail=${q(`cluster_${e.source}`)}`);
      if (isCluster(t) && t !== e.source) attrs.push(`lhead=${q(`cluster_${t}`)}`);
      const n = marks?.edgeVisits[e.id];
      if (n) attrs.push('color="#1d4ed8"', 'penwidth=2', `xlabel=${q(`×${n}`)}`);
      else if (marks) attrs.push('color="#94a3b8"', 'fontcolor="#94a3b8"');
      lines.push(`  ${point(e.source)} -> ${point(t)} [${attrs.join(', ')}];`);
    }
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
