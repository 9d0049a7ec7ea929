// `machinist workers`: the supervisors, live, stopped and gone, with what each runs and the jobs
// the reaper took back from a gone one (actions/workers.ts; docs/cli.md).

import { Command } from 'commander';
import type { GlobalOptions } from '../connect.js';

export function workersCommand(globals: () => GlobalOptions): Command {
  return new Command('workers')
    .description(
      'the supervisors: host, pid, version, queues, jobs running, heartbeat age; gone ones with their requeued jobs',
    )
    .option('--json', 'print the fleet as JSON')
    .action(async (opts: { json?: boolean }) =>
      (await import('../actions/workers.js')).runWorkers(globals(), opts),
    );
}
