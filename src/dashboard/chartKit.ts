// What the dashboard takes from the chart module (src/chart/), in the forms its routes need:
// the drawn SVG (unmarked: the page marks it), a job's marks now or as of a point in its log,
// the states a job sits in, and the events it accepts now.

import type { ChartMarks, MachineGraph } from '../store/chartModel.js';
import { currentStateValue, jobMarks, stateHistory } from '../chart/jobMarks.js';
import { layoutGraph } from '../chart/layoutGraph.js';
import { nextEvents as chartNextEvents } from '../chart/nextEvents.js';
import { leafStateIds, stateValueIds } from '../chart/stateValueIds.js';
import { toSvg } from '../chart/toSvg.js';
import type { AuditEntry, JobRecord } from '../store/types.js';
import type { ChartSource } from './definitions.js';

export type { ChartMarks };

/** The chart of a machine version, laid out once (layoutGraph caches per name@version). */
export async function chartSvg(source: ChartSource): Promise<string> {
  return toSvg(await layoutGraph(source.graph));
}

/**
 * The job's marks from `log`. `present`: the log is whole and the active states are the
 * record's; otherwise (scrubbing) they are those of the last state the log prefix names.
 */
export function marksAt(
  graph: MachineGraph,
  job: JobRecord,
  log: AuditEntry[],
  present: boolean,
): ChartMarks {
  const marks = jobMarks(job, log, graph);
  if (present) return marks;
  const last = stateHistory(graph, log).at(-1);
  const active = last === undefined ? [] : stateValueIds(graph, last).filter((id) => id !== graph.root);
  // As of an earlier entry the job was still running there: nothing had stopped yet.
  const { ended: _ended, ...rest } = marks;
  void _ended;
  return { ...rest, active, stopped: [] };
}

/** The innermost states the job sits in now (for counting jobs per state). */
export function jobLeafStates(graph: MachineGraph, job: JobRecord): string[] {
  const value = currentStateValue(graph, job);
  return value === null ? [] : leafStateIds(graph, value).filter((id) => id !== graph.root);
}

/** Event types the job accepts now: a pipeline's own events (a simple job takes none). */
export function acceptedEvents(source: ChartSource, job: JobRecord): string[] {
  if (source.graph.kind === 'job') return [];
  const persisted = (job.snapshot as { w?: unknown } | null)?.w;
  if (!persisted) return [];
  return chartNextEvents(source.definition ?? source.graph, persisted);
}
