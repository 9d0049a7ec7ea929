// A chart as Mermaid `stateDiagram-v2` text (renders on GitHub): compound states as composite
// blocks, parallel regions separated by `--`, `[*]` for initial and final states, transitions
// labelled by edgeLabel. Mermaid ids may not hold dots, so each state gets a safe id and its key
// as its label. A job's marks become classes (`active`, `visited`) and visit counts in labels
// (Mermaid cannot style one transition of a state diagram, so a taken one shows its count).

import type { ChartMarks, GraphEdge, GraphNode, MachineGraph } from '../store/chartModel.js';
import { edgeLabel } from './edgeLabel.js';

/** Mermaid state ids: letters, digits and `_`, unique in the diagram. */
export function mermaidIds(graph: MachineGraph): Map<string, string> {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  for (const n of graph.nodes) {
    let id = n.id.replace(/[^A-Za-z0-9_]/g, '_');
    if (!/^[A-Za-z_]/.test(id)) id = `s_${id}`;
    for (let i = 2; used.has(id); i++) id = `${id}_${i}`;
    used.add(id);
    ids.set(n.id, id);
  }
  return ids;
}

/** Text Mermaid takes inside a label: no quotes, colons, semicolons, `#` or line breaks. */
function clean(text: string): string {
  return text.replace(/[":;#\n\r]/g, ' ').trim();
}

const times = (n: number | undefined) => (n ? ` ×${n}` : '');

/**
 * @example toMermaid(machineGraph(approval)) // "stateDiagram-v2\n  state \"approval\" as approval ..."
 */
export function toMermaid(graph: MachineGraph, marks?: ChartMarks): string {
  const mid = mermaidIds(graph);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const lines: string[] = ['stateDiagram-v2', `  %% ${clean(`${graph.name}@${graph.version}`)}`];
  // Each state is declared inside its parent's block: Mermaid scopes a state to the block it
  // first appears in.
  const declare = (n: GraphNode, indent: string) =>
    lines.push(`${indent}state "${clean(n.key)}${times(marks?.visits[n.id])}" as ${mid.get(n.id)}`);

  // Each edge goes in the block of the closest state holding both ends (Mermaid scopes ids).
  const ancestors = (id: string) => {
    const out: string[] = [];
    for (let n = byId.get(id); n; n = n.parent ? byId.get(n.parent) : undefined) out.push(n.id);
    return out;
  };
  const edgesIn = new Map<string | null, string[]>();
  for (const e of graph.edges) {
    for (const target of e.targets.length ? e.targets : [e.source]) {
      const up = new Set(ancestors(target));
      let home: string | null = ancestors(e.source).find((a) => up.has(a)) ?? null;
      if (home === e.source || home === target) home = home ? (byId.get(home)?.parent ?? null) : null;
      const list = edgesIn.get(home) ?? [];
      list.push(edgeLine(e, target, mid, marks));
      edgesIn.set(home, list);
    }
  }

  const block = (n: GraphNode, indent: string) => {
    declare(n, indent);
    if (n.children.length === 0) return;
    lines.push(`${indent}state ${mid.get(n.id)} {`);
    const inner = `${indent}  `;
    n.children.forEach((c, i) => {
      if (n.kind === 'parallel' && i > 0) lines.push(`${inner}--`);
      block(byId.get(c)!, inner);
    });
    if (n.initial) lines.push(`${inner}[*] --> ${mid.get(n.initial)}`);
    for (const c of n.children)
      if (byId.get(c)!.kind === 'final') lines.push(`${inner}${mid.get(c)} --> [*]`);
    for (const l of edgesIn.get(n.id) ?? []) lines.push(inner + l);
    lines.push(`${indent}}`);
  };
  const root = byId.get(graph.root)!;
  block(root, '  ');
  if (root.children.length === 0) lines.push(`  [*] --> ${mid.get(root.id)}`);
  for (const l of edgesIn.get(null) ?? []) lines.push(`  ${l}`);

  if (marks) {
    lines.push('  classDef active fill:#fde68a,stroke:#b45309,stroke-width:3px');
    lines.push('  classDef visited fill:#dbeafe,stroke:#1d4ed8');
    const active = marks.active.filter((id) => mid.has(id));
    const stopped = (marks.stopped ?? []).filter((id) => mid.has(id));
    const visited = Object.keys(marks.visits).filter(
      (id) => mid.has(id) && !active.includes(id) && !stopped.includes(id),
    );
    if (visited.length) lines.push(`  class ${visited.map((id) => mid.get(id)).join(',')} visited`);
    if (active.length) lines.push(`  class ${active.map((id) => mid.get(id)).join(',')} active`);
    if (stopped.length) lines.push('  classDef stopped fill:#fee2e2,stroke:#b91c1c,stroke-width:3px');
    if (stopped.length) lines.push(`  class ${stopped.map((id) => mid.get(id)).join(',')} stopped`);
  }
  return `${lines.join('\n')}\n`;
}

function edgeLine(e: GraphEdge, target: string, mid: Map<string, string>, marks?: ChartMarks): string {
  const label = clean(edgeLabel(e)) + times(marks?.edgeVisits[e.id]);
  return `${mid.get(e.source)} --> ${mid.get(target)} : ${label}`;
}
