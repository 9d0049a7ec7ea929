// `machinist cancel <id>`: cancels a job; a running one stops within one heartbeat.

import { Command } from 'commander';
import { withBackend, type GlobalOptions } from '../connect.js';
import { CliError } from '../CliError.js';

export function cancelCommand(globals: () => GlobalOptions): Command {
  return new Command('cancel')
    .description('cancel a job (queued: at once; running: its signal fires within one heartbeat)')
    .argument('<id>', 'job id')
    .option('-q, --queue <name>', "the job's queue (default: looked up across queues)")
    .action(async (id: string, opts: { queue?: string }) => {
      await withBackend(globals(), async (backend) => {
        const r = await backend.cancel(id, opts.queue);
        if (!r.cancelled)
          throw new CliError(`job ${id} has already finished (${r.status}); nothing to cancel`);
        console.log(
          r.status === 'cancelled'
            ? `cancelled ${id}`
            : `cancel requested for ${id} (${r.status}); its worker stops it`,
        );
      });
    });
}
