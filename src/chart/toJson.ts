// A chart as JSON: the graph (chartModel.ts), with a job's marks when given. What
// `machinist chart --format json` prints and the HTTP API serves.

import type { ChartMarks, MachineGraph } from '../store/chartModel.js';

export function toJson(graph: MachineGraph, marks?: ChartMarks): string {
  return `${JSON.stringify(marks ? { ...graph, marks } : graph, null, 2)}\n`;
}
