// `machinist queue pause|resume|limits <queue>`: a queue's flow controls (docs/flow-control.md)
// through the backend (a store's Client, or the HTTP API's /queues/:queue/... routes).

import { Command } from 'commander';
import { withBackend, type GlobalOptions } from '../connect.js';
import { CliError } from '../CliError.js';
import type { QueueLimitsChange, QueueLimitsView } from '../../client/QueueControls.js';
import type { KeyStrategy, RateLimit } from '../../store/types.js';

/** A limit from the command line: a positive whole number, or `none` to clear it. */
function limitArg(name: string) {
  return (v: string): number | null => {
    if (v === 'none') return null;
    if (!/^\d+$/.test(v) || Number(v) < 1)
      throw new CliError(`--${name} must be a positive whole number or 'none' (got '${v}')`);
    return Number(v);
  };
}

interface CliLimits {
  total?: number | null;
  perKey?: number | null;
  rateLimit?: RateLimit | null;
  strategy?: KeyStrategy;
  json?: boolean;
}

/** `100/1000` or `100/1000+10` (limit/perMs+burst), or `none`. */
function rateArg(v: string): RateLimit | null {
  if (v === 'none') return null;
  const m = /^(\d+)\/(\d+)(?:\+(\d+))?$/.exec(v);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1)
    throw new CliError(`--rate-limit wants limit/perMs[+burst], e.g. 100/1000+10, or 'none' (got '${v}')`);
  return { limit: Number(m[1]), perMs: Number(m[2]), burst: Number(m[3] ?? 0) };
}

function printLimits(v: QueueLimitsView): void {
  const { total, perKey } = v.limits;
  console.log(`queue '${v.queue}'${v.paused ? ' (paused)' : ''}`);
  console.log(`  running   ${v.running}${total !== undefined ? ` of total ${total}` : ''}`);
  console.log(`  perKey    ${perKey ?? 'none'} (strategy ${v.limits.strategy ?? 'queue'})`);
  const r = v.limits.rateLimit;
  console.log(`  rateLimit ${r ? `${r.limit} per ${r.perMs} ms, burst ${r.burst ?? 0}` : 'none'}`);
  for (const k of v.keys)
    console.log(`  key ${JSON.stringify(k.key)}: running ${k.running}, waiting ${k.waiting}`);
}

export function queueCommand(globals: () => GlobalOptions): Command {
  const cmd = new Command('queue').description(
    "a queue's flow controls: pause, resume, limits (docs/flow-control.md)",
  );
  for (const action of ['pause', 'resume'] as const)
    cmd.addCommand(
      new Command(action)
        .description(
          action === 'pause'
            ? 'stop supervisors claiming from the queue (running jobs finish; enqueues are accepted)'
            : 'let supervisors claim from the queue again',
        )
        .argument('<queue>', 'the queue (all its partitions)')
        .action(async (queue: string) => {
          await withBackend(globals(), async (backend) => {
            await backend.pauseQueue(queue, action === 'pause');
            console.log(`queue '${queue}': ${action === 'pause' ? 'paused' : 'resumed'}`);
          });
        }),
    );
  cmd.addCommand(
    new Command('limits')
      .description("show the queue's limits and use per concurrency key; with options, set them first")
      .argument('<queue>', 'the queue (all its partitions)')
      .option('--total <n>', "most running jobs of the queue ('none' clears it)", limitArg('total'))
      .option(
        '--per-key <n>',
        "most running jobs per concurrency key ('none' clears it)",
        limitArg('per-key'),
      )
      .option(
        '--rate-limit <limit/perMs[+burst]>',
        "throttle: at most limit (+ burst) starts per perMs, e.g. 100/1000+10 ('none' clears it)",
        rateArg,
      )
      .option('--strategy <s>', 'for a job whose key is full: queue, cancelNewest or cancelInProgress')
      .option('--json', 'print as JSON')
      .action(async (queue: string, opts: CliLimits) => {
        const set =
          opts.total !== undefined ||
          opts.perKey !== undefined ||
          opts.rateLimit !== undefined ||
          opts.strategy !== undefined;
        const change: QueueLimitsChange | undefined = set
          ? {
              concurrency: {
                ...(opts.total !== undefined ? { total: opts.total } : {}),
                ...(opts.perKey !== undefined ? { perKey: opts.perKey } : {}),
                ...(opts.strategy !== undefined ? { strategy: opts.strategy } : {}),
              },
              ...(opts.rateLimit !== undefined ? { rateLimit: opts.rateLimit } : {}),
            }
          : undefined;
        await withBackend(globals(), async (backend) => {
          const v = await backend.queueLimits(queue, change);
          if (opts.json) console.log(JSON.stringify(v, null, 2));
          else printLimits(v);
        });
      }),
  );
  return cmd;
}
