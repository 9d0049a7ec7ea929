// The chart module's public face (named exports only): what the CLI, the HTTP API and the
// dashboard draw a machine and a job with.

export type {
  MachineGraph,
  GraphNode,
  GraphEdge,
  GraphInvoke,
  EdgeKind,
  StateKind,
  ChartMarks,
} from '../store/chartModel.js';
export { machineGraph, graphOfMachine, machineOf } from '../pipeline/machineGraph.js';
export { chartFor, parseMachineRef } from './chartSource.js';
export { layoutGraph } from './layoutGraph.js';
export type { ChartLayout, LayoutNode, LayoutEdge, LayoutInitial, Point } from './layoutGraph.js';
export { edgeLabel } from './edgeLabel.js';
export { chartDiff, type ChartDiff } from './chartDiff.js';
export { stateValueIds, leafStateIds } from './stateValueIds.js';
export { jobMarks, stateHistory, currentStateValue } from './jobMarks.js';
export { jobChart, type JobReader } from './jobChart.js';
export { nextEvents } from './nextEvents.js';
export { toMermaid, mermaidIds } from './toMermaid.js';
export { toDot } from './toDot.js';
export { toSvg, escapeXml } from './toSvg.js';
export { toJson } from './toJson.js';
export { CHART_CSS } from './chartStyle.js';
