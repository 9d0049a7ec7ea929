// What `machinist chart <machine[@version]|job-id>` does (its options: commands/chart.ts): draws a
// machine's state chart as Mermaid (default), DOT, SVG (the dashboard's layout) or JSON. Given a
// job id, the job's active states and the states and transitions it went through are marked. The
// chart comes from the registry supervisors publish, or from `--jobs <module>` (then a machine
// needs no Redis at all); with --url, from the server (a job's chart and marks are the server's:
// GET /jobs/{id}/chart).

import { chartFor, parseMachineRef } from '../../chart/chartSource.js';
import type { ChartMarks, MachineGraph } from '../../store/chartModel.js';
import { layoutGraph } from '../../chart/layoutGraph.js';
import { toDot } from '../../chart/toDot.js';
import { toJson } from '../../chart/toJson.js';
import { toMermaid } from '../../chart/toMermaid.js';
import { toSvg } from '../../chart/toSvg.js';
import type { AnyDefinition } from '../../runtime/registry.js';
import { withBackend, type GlobalOptions } from '../connect.js';
import { loadJobs } from '../loadJobs.js';

export type Format = 'mermaid' | 'dot' | 'svg' | 'json';

export interface ChartOptions {
  format: Format;
  jobs?: string;
  queue?: string;
}

/** Job ids start with a ULID (a digit); machine names start with a letter. */
const isJobId = (target: string) => /^[0-9]/.test(target);

async function render(graph: MachineGraph, marks: ChartMarks | undefined, format: Format): Promise<string> {
  switch (format) {
    case 'dot':
      return toDot(graph, marks);
    case 'svg':
      return toSvg(await layoutGraph(graph), marks);
    case 'json':
      return toJson(graph, marks);
    default:
      return toMermaid(graph, marks);
  }
}

/** `globals` is read only when a store or server is needed: a machine of --jobs needs neither. */
export async function runChart(
  globals: () => GlobalOptions,
  target: string,
  opts: ChartOptions,
): Promise<void> {
  const local: AnyDefinition[] = opts.jobs ? await loadJobs(opts.jobs) : [];
  if (!isJobId(target)) {
    const { name, version } = parseMachineRef(target);
    const mine = local.some((d) => d.name === name && (version === undefined || d.version === version));
    if (mine)
      return void process.stdout.write(
        await render(chartFor(name, version, [], local), undefined, opts.format),
      );
    return withBackend(
      globals(),
      async (backend) => {
        const graph = await backend.machineChart(name, version);
        process.stdout.write(await render(graph, undefined, opts.format));
      },
      { local },
    );
  }
  await withBackend(
    globals(),
    async (backend) => {
      const { graph, marks } = await backend.jobChart(target, opts.queue);
      process.stdout.write(await render(graph, marks, opts.format));
    },
    { local },
  );
}
