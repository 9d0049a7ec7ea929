// A job's chart: its machine's chart model and the job's marks on it (jobMarks.ts), read from
// the job's record and audit log. What `machinist chart <job-id>` draws, whether it reads a
// store or the HTTP API (`GET /jobs/{id}/chart`, served with this same function).

import { JobNotFoundError } from '../errors.js';
import type { AnyDefinition } from '../runtime/registry.js';
import type { AuditEntry, JobRecord, MachineInfo } from '../store/types.js';
import type { ChartMarks, MachineGraph } from '../store/chartModel.js';
import { chartFor } from './chartSource.js';
import { jobMarks } from './jobMarks.js';

/** What jobChart reads a job with (a Client has both). */
export interface JobReader {
  get(id: string, options: { queue?: string }): Promise<JobRecord | null>;
  events(id: string, options: { queue?: string }): Promise<AuditEntry[]>;
}

/**
 * The job's chart and marks. The chart comes from `local` definitions when one matches the job's
 * machine and version, else from the registry `machines` gives. Throws JOB_NOT_FOUND,
 * UNKNOWN_MACHINE, NO_CHART.
 * @example const { graph, marks } = await jobChart(client, () => store.machines(), id);
 */
export async function jobChart(
  reader: JobReader,
  machines: () => Promise<readonly MachineInfo[]>,
  id: string,
  options: { queue?: string; local?: readonly AnyDefinition[] } = {},
): Promise<{ job: JobRecord; graph: MachineGraph; marks: ChartMarks }> {
  const job = await reader.get(id, { queue: options.queue });
  if (!job) throw new JobNotFoundError(id, options.queue);
  const [log, registry] = await Promise.all([reader.events(id, { queue: job.queue }), machines()]);
  const graph = chartFor(job.machine, job.version, registry, options.local);
  return { job, graph, marks: jobMarks(job, log, graph) };
}
