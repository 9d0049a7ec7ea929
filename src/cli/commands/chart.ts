// `machinist chart <machine[@version]|job-id>`: draws a machine's state chart as Mermaid
// (default), DOT, SVG (the dashboard's layout) or JSON. Given a job id, the job's active states
// and the states and transitions it went through are marked. The chart comes from the registry
// supervisors publish, or from `--jobs <module>` (then a machine needs no Redis at all).

import { Command, Option } from 'commander';
import { chartFor, parseMachineRef } from '../../chart/chartSource.js';
import type { ChartMarks, MachineGraph } from '../../chart/chartModel.js';
import { jobMarks } from '../../chart/jobMarks.js';
import { layoutGraph } from '../../chart/layoutGraph.js';
import { toDot } from '../../chart/toDot.js';
import { toJson } from '../../chart/toJson.js';
import { toMermaid } from '../../chart/toMermaid.js';
import { toSvg } from '../../chart/toSvg.js';
import { JobNotFoundError } from '../../errors.js';
import type { AnyDefinition } from '../../runtime/registry.js';
import { withClient, type GlobalOptions } from '../connect.js';
import { loadJobs } from '../loadJobs.js';

type Format = 'mermaid' | 'dot' | 'svg' | 'json';

interface ChartOptions {
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

export function chartCommand(globals: () => GlobalOptions): Command {
  return new Command('chart')
    .description("draw a machine's state chart; given a job id, mark its active and visited states")
    .argument('<target>', 'machine name, name@version, or job id')
    .addOption(
      new Option('-f, --format <format>', 'output format')
        .choices(['mermaid', 'dot', 'svg', 'json'])
        .default('mermaid'),
    )
    .option('--jobs <module>', 'take the machines from this module instead of the registry in Redis')
    .option('-q, --queue <name>', "a job's queue (default: looked up across queues)")
    .action(async (target: string, opts: ChartOptions) => {
      const local: AnyDefinition[] = opts.jobs ? await loadJobs(opts.jobs) : [];
      if (!isJobId(target)) {
        const { name, version } = parseMachineRef(target);
        const mine = local.some((d) => d.name === name && (version === undefined || d.version === version));
        if (mine)
          return void process.stdout.write(
            await render(chartFor(name, version, [], local), undefined, opts.format),
          );
        return withClient(globals(), async (_client, store) => {
          const graph = chartFor(name, version, await store.machines(), local);
          process.stdout.write(await render(graph, undefined, opts.format));
        });
      }
      await withClient(globals(), async (client, store) => {
        const job = await client.get(target, { queue: opts.queue });
        if (!job) throw new JobNotFoundError(target, opts.queue);
        const [log, machines] = await Promise.all([
          client.events(target, { queue: job.queue }),
          store.machines(),
        ]);
        const graph = chartFor(job.machine, job.version, machines, local);
        process.stdout.write(await render(graph, jobMarks(job, log, graph), opts.format));
      });
    });
}
