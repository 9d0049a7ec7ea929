// What the dashboard needs from the chart module: the drawn SVG of a machine, a job's marks,
// the full ids of a state value, and the events a job's current states accept.

import type { AuditEntry, JobRecord } from '../store/types.js';

export interface Marks {
  /** Full XState ids of the active states (leaves). */
  active: string[];
  /** Times each state was entered, by full id. */
  states: Record<string, number>;
  /** Times each transition was taken, by the chart's transition id. */
  transitions: Record<string, number>;
}

export interface ChartKit {
  /** The chart of a machine version as SVG text, laid out once per `key` (machine@version). */
  svg(definition: unknown, key: string): Promise<string>;
  /** Marks of `job` from `log` (a prefix of its log when scrubbing; `present`: the whole log). */
  marks(definition: unknown, job: JobRecord, log: AuditEntry[], present: boolean): Marks;
  /** Full ids of the leaf states a state value names. */
  activeIds(definition: unknown, value: unknown): string[];
  /** Event types the job's active states (and their ancestors) accept now. */
  nextEvents(definition: unknown, job: JobRecord): string[];
}
