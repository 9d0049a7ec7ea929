// Lays a chart out with elkjs: the layered algorithm with hierarchyHandling INCLUDE_CHILDREN
// (what Stately's visualizer uses), so compound and parallel states are boxes holding their
// children and edges may cross box borders. Every position returned is absolute (ELK gives edge
// points relative to the edge's container; they are moved here once). A layout depends only on
// the graph, never on a job: it is computed once per machine name@version and cached, so a job
// changing state never moves the chart.

import type { ELK as ElkApi, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { GraphEdge, GraphNode, MachineGraph, StateKind } from '../store/chartModel.js';
import { edgeLabel } from './edgeLabel.js';
import { textWidth } from './textWidth.js';

export interface Point {
  x: number;
  y: number;
}

export interface LayoutNode {
  /** The state's full id. */
  id: string;
  label: string;
  kind: StateKind;
  /** 0 for the root. */
  depth: number;
  /** The parent is a parallel state: this box is one of its regions. */
  region: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
  /** One line per invoke or fanOut, drawn under the label. */
  invokeLines: string[];
}

export interface LayoutEdge {
  /** `<GraphEdge.id>` or, for a transition with several targets, `<GraphEdge.id>#<i>`. */
  id: string;
  edgeId: string;
  source: string;
  target: string;
  event: string;
  label: string;
  /** The polyline: start point, bend points, end point. */
  points: Point[];
  labelBox: { x: number; y: number; width: number; height: number } | null;
}

/** The filled dot of a compound state's initial child, and its arrow to that child. */
export interface LayoutInitial {
  /** The compound state whose initial child this points to. */
  parent: string;
  target: string;
  cx: number;
  cy: number;
  r: number;
  points: Point[];
}

export interface ChartLayout {
  name: string;
  version: number;
  width: number;
  height: number;
  nodes: LayoutNode[];
  edges: LayoutEdge[];
  initials: LayoutInitial[];
}

// Text is measured with textWidth.ts (no DOM on the server): state names 12 px bold, invoke
// lines and edge labels 11 px, the machine page's dwell line 10 px (chartStyle.ts sets them).
const LINE_H = 16;
const HEADER_H = 26;
const PAD = 12;
const INITIAL_R = 6;
// The machine page's dwell-time line (10 px) at the bottom of each leaf state: reserved in every
// layout, since one layout per machine version serves both pages.
const HEAT_SAMPLE = 'p50 999 ms · p95 999 ms';
const HEAT_H = 12;
// Room after a name for the widest mark a page writes there: a job's visits (` ×12`) or the
// machine page's jobs now (` (999)`); after an edge label for its count (` ×12`). Marks never
// change the layout, so the room is kept whether a mark is shown or not.
const STATE_MARK = ' (999)';
const EDGE_MARK = ' ×99';
const EDGE_LABEL_PAD = 10;
const EDGE_LABEL_H = 16;

const INITIAL_SUFFIX = '\u0000initial';

function invokeLine(inv: GraphNode['invokes'][number]): string {
  return inv.src === inv.id ? `${inv.kind} ${inv.id}` : `${inv.kind} ${inv.id} (${inv.src})`;
}

/** The widest of a state's lines: its name (with room for a mark) and its invoke lines. */
function stateTextWidth(name: string, lines: string[]): number {
  return Math.max(textWidth(name + STATE_MARK, 12, true), ...lines.map((l) => textWidth(l, 11)));
}

const LAYERED = {
  'elk.algorithm': 'layered',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.direction': 'DOWN',
  // Cycles (retry loops) are broken in document order, so the initial state comes first.
  'elk.layered.cycleBreaking.strategy': 'DEPTH_FIRST',
  'elk.spacing.nodeNode': '28',
  'elk.layered.spacing.nodeNodeBetweenLayers': '36',
  'elk.spacing.edgeLabel': '4',
  'elk.edgeLabels.placement': 'CENTER',
};

function toElk(graph: MachineGraph): ElkNode {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const build = (n: GraphNode): ElkNode => {
    const lines = n.invokes.map(invokeLine);
    const hasChildren = n.children.length > 0;
    if (!hasChildren) {
      return {
        id: n.id,
        // Room for a visit count (` ×12`) after the name: marks never change the layout.
        width: Math.ceil(Math.max(textWidth(HEAT_SAMPLE, 10), stateTextWidth(n.key, lines)) + 2 * PAD),
        height: 32 + LINE_H * lines.length + HEAT_H,
      };
    }
    const children = n.children.map((c) => build(byId.get(c)!));
    if (n.initial)
      children.unshift({ id: n.id + INITIAL_SUFFIX, width: 2 * INITIAL_R, height: 2 * INITIAL_R });
    const top = HEADER_H + LINE_H * lines.length;
    return {
      id: n.id,
      children,
      layoutOptions: {
        ...LAYERED,
        'elk.padding': `[top=${top},left=${PAD},bottom=${PAD},right=${PAD}]`,
        'elk.nodeSize.constraints': 'MINIMUM_SIZE',
        'elk.nodeSize.minimum': `(${Math.ceil(stateTextWidth(n.key, lines) + 2 * PAD)}, ${top + PAD})`,
      },
    };
  };
  const edges: ElkExtendedEdge[] = [];
  for (const e of graph.edges) {
    const targets = e.targets.length ? e.targets : [e.source];
    targets.forEach((t, i) => {
      const text = edgeLabel(e);
      edges.push({
        id: targets.length > 1 ? `${e.id}#${i}` : e.id,
        sources: [e.source],
        targets: [t],
        // A label is a node of its own in ELK's layered algorithm (CENTER placement): sized
        // from its text, it is placed between the layers and never overlaps another.
        labels: [
          {
            text,
            width: Math.ceil(textWidth(text + EDGE_MARK, 11) + EDGE_LABEL_PAD),
            height: EDGE_LABEL_H,
          },
        ],
      });
    });
  }
  for (const n of graph.nodes)
    if (n.initial)
      edges.push({ id: n.id + INITIAL_SUFFIX, sources: [n.id + INITIAL_SUFFIX], targets: [n.initial] });
  return {
    id: '\u0000chart',
    layoutOptions: { ...LAYERED, 'elk.padding': '[top=8,left=8,bottom=8,right=8]' },
    children: [build(byId.get(graph.root)!)],
    edges,
  };
}

// elkjs is CommonJS: Node hands its constructor over as the default export, while its typings
// (an ES default export) put it one level down.
type ElkConstructor = new () => ElkApi;
let elk: Promise<ElkApi> | undefined;

/**
 * elkjs, loaded at the first layout rather than when this module is imported: it is 1.5 MB of
 * JavaScript (0.4-0.9 s to load on a 2-core machine), and most processes that import Machinist
 * never draw a chart (a worker; every test file but the chart ones, which CI runs one process
 * each: ~190 loads of it).
 */
function loadElk(): Promise<ElkApi> {
  elk ??= import('elkjs/lib/elk.bundled.js').then((elkModule) => {
    const m = elkModule as unknown as { default?: ElkConstructor | { default?: ElkConstructor } };
    const Elk = ((m.default as { default?: ElkConstructor }).default ?? m.default) as ElkConstructor;
    return new Elk();
  });
  return elk;
}

async function layout(graph: MachineGraph): Promise<ChartLayout> {
  const result = await (await loadElk()).layout(toElk(graph));
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const edgesById = new Map(graph.edges.map((e) => [e.id, e]));
  const origin = new Map<string, Point>([[result.id, { x: 0, y: 0 }]]);
  const nodes: LayoutNode[] = [];
  const initialDots = new Map<string, { cx: number; cy: number }>();
  const place = (n: ElkNode, parent: Point, depth: number) => {
    const at = { x: parent.x + (n.x ?? 0), y: parent.y + (n.y ?? 0) };
    origin.set(n.id, at);
    if (n.id.endsWith(INITIAL_SUFFIX)) {
      initialDots.set(n.id, { cx: at.x + INITIAL_R, cy: at.y + INITIAL_R });
      return;
    }
    const g = byId.get(n.id)!;
    nodes.push({
      id: g.id,
      label: g.key,
      kind: g.kind,
      depth,
      region: g.parent !== null && byId.get(g.parent)?.kind === 'parallel',
      x: at.x,
      y: at.y,
      width: n.width ?? 0,
      height: n.height ?? 0,
      invokeLines: g.invokes.map(invokeLine),
    });
    for (const c of n.children ?? []) place(c, at, depth + 1);
  };
  for (const c of result.children ?? []) place(c, { x: 0, y: 0 }, 0);

  const edges: LayoutEdge[] = [];
  const initials: LayoutInitial[] = [];
  for (const e of (result.edges ?? []) as (ElkExtendedEdge & { container?: string })[]) {
    const off = origin.get(e.container ?? result.id) ?? { x: 0, y: 0 };
    const points: Point[] = [];
    for (const s of e.sections ?? []) {
      for (const p of [s.startPoint, ...(s.bendPoints ?? []), s.endPoint])
        points.push({ x: p.x + off.x, y: p.y + off.y });
    }
    if (e.id.endsWith(INITIAL_SUFFIX)) {
      const parent = e.id.slice(0, -INITIAL_SUFFIX.length);
      const dot = initialDots.get(e.id)!;
      initials.push({ parent, target: e.targets[0]!, ...dot, r: INITIAL_R, points });
      continue;
    }
    const edgeId = e.id.replace(/#\d+$/, '');
    const g: GraphEdge = edgesById.get(edgeId)!;
    const l = e.labels?.[0];
    edges.push({
      id: e.id,
      edgeId,
      source: g.source,
      target: e.targets[0]!,
      event: g.event,
      label: edgeLabel(g),
      points,
      labelBox:
        l && l.x !== undefined && l.y !== undefined
          ? { x: l.x + off.x, y: l.y + off.y, width: l.width ?? 0, height: l.height ?? 0 }
          : null,
    });
  }
  return {
    name: graph.name,
    version: graph.version,
    width: result.width ?? 0,
    height: result.height ?? 0,
    nodes,
    edges,
    initials,
  };
}

const cache = new Map<string, { text: string; layout: Promise<ChartLayout> }>();

/**
 * The chart's layout, computed once per machine name@version (again only if that version's
 * graph is not the one laid out: a machine replaced on purpose, acceptChangedMachines).
 * @example const svg = toSvg(await layoutGraph(graph), marks);
 */
export function layoutGraph(graph: MachineGraph): Promise<ChartLayout> {
  const key = `${graph.name}@${graph.version}`;
  const text = JSON.stringify(graph);
  const hit = cache.get(key);
  if (hit && hit.text === text) return hit.layout;
  const entry = { text, layout: layout(graph) };
  // A failed layout is not kept: the next call tries again.
  entry.layout.catch(() => cache.get(key) === entry && cache.delete(key));
  cache.set(key, entry);
  return entry.layout;
}
