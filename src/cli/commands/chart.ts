// `machinist chart <machine[@version]|job-id>`: draws a machine's state chart (actions/chart.ts).

import { Command, Option } from 'commander';
import type { ChartOptions } from '../actions/chart.js';
import type { GlobalOptions } from '../connect.js';

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
    .action(async (target: string, opts: ChartOptions) =>
      (await import('../actions/chart.js')).runChart(globals, target, opts),
    );
}
