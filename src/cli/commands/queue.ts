// `machinist queue pause|resume|limits <queue>`, `machinist queue pause-key|resume-key <queue> <key>`: a queue's flow controls (docs/flow-control.md)
// through the backend (a store's Client, or the HTTP API's /queues/:queue/... routes).

import { Command } from 'commander';
import { withBackend, type GlobalOptions } from '../connect.js';
import { CliError } from '../CliError.js';
import type { QueueLimitsChange, QueueLimitsView } from '../../client/QueueControls.js';
import type { Fairness, KeyStrategy, RateLimit } from '../../store/types.js';

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
  keyRateLimit?: RateLimit | null;
  machine?: NonNullable<QueueLimitsChange['machines']>;
  shared?: NonNullable<QueueLimitsChange['shared']>;
  machineRateLimit?: Record<string, RateLimit | null>;
  strategy?: KeyStrategy;
  fairness?: Fairness;
  json?: boolean;
}

/** `100/1000`, `100/1000+10` (limit/perMs+burst), either with `,skip` (mode skip), or `none`. */
function rateArg(name: string) {
  return (v: string): RateLimit | null => {
    if (v === 'none') return null;
    const m = /^(\d+)\/(\d+)(?:\+(\d+))?(?:,(wait|skip))?$/.exec(v);
    if (!m || Number(m[1]) < 1 || Number(m[2]) < 1)
      throw new CliError(
        `--${name} wants limit/perMs[+burst][,skip], e.g. 100/1000+10 or 5/1000,skip, or 'none' (got '${v}')`,
      );
    return {
      limit: Number(m[1]),
      perMs: Number(m[2]),
      burst: Number(m[3] ?? 0),
      ...(m[4] === 'skip' ? { mode: 'skip' as const } : {}),
    };
  };
}

/** `--machine name=N`, `name=shared:S` or `name=none`, repeated: one machine's limit each. */
function machineArg(v: string, prev: CliLimits['machine'] = {}): NonNullable<CliLimits['machine']> {
  const m = /^([^=]+)=(?:(\d+)|shared:(.+)|(none))$/.exec(v);
  if (!m || (m[2] !== undefined && Number(m[2]) < 1))
    throw new CliError(`--machine wants name=N, name=shared:<limit> or name=none (got '${v}')`);
  return {
    ...prev,
    [m[1]!]: m[4] ? null : m[3] !== undefined ? { shared: m[3] } : { concurrency: Number(m[2]) },
  };
}

/** `--machine-rate-limit name=limit/perMs[+burst][,skip]` or `name=none`, repeated: one machine's throttle each. */
function machineRateArg(
  v: string,
  prev: CliLimits['machineRateLimit'] = {},
): Record<string, RateLimit | null> {
  const m = /^([^=]+)=(.+)$/.exec(v);
  if (!m)
    throw new CliError(
      `--machine-rate-limit wants name=limit/perMs[+burst][,skip] or name=none (got '${v}')`,
    );
  return { ...prev, [m[1]!]: rateArg('machine-rate-limit')(m[2]!) };
}

/** `--machine` and `--machine-rate-limit` as one `machines` change (a machine's fields merged). */
function machinesChange(opts: CliLimits): QueueLimitsChange['machines'] {
  if (opts.machine === undefined && opts.machineRateLimit === undefined) return undefined;
  const out: NonNullable<QueueLimitsChange['machines']> = { ...opts.machine };
  for (const [name, rateLimit] of Object.entries(opts.machineRateLimit ?? {})) {
    const gate = out[name];
    if (gate === null)
      throw new CliError(
        `--machine ${name}=none takes all of ${name}'s limits away: drop --machine-rate-limit ${name}`,
      );
    out[name] = { ...gate, rateLimit };
  }
  return out;
}

/** `--shared name=N` or `name=none`, repeated: one shared limit each. */
function sharedArg(v: string, prev: CliLimits['shared'] = {}): NonNullable<CliLimits['shared']> {
  const m = /^([^=]+)=(?:(\d+)|(none))$/.exec(v);
  if (!m || (m[2] !== undefined && Number(m[2]) < 1))
    throw new CliError(`--shared wants name=N or name=none (got '${v}')`);
  return { ...prev, [m[1]!]: m[3] ? null : { concurrency: Number(m[2]) } };
}

const rateText = (r: RateLimit | undefined): string =>
  r ? `${r.limit} per ${r.perMs} ms, burst ${r.burst ?? 0}${r.mode === 'skip' ? ', mode skip' : ''}` : 'none';

function printLimits(v: QueueLimitsView): void {
  const { total, perKey } = v.limits;
  console.log(`queue '${v.queue}'${v.paused ? ' (paused)' : ''}`);
  console.log(`  running   ${v.running}${total !== undefined ? ` of total ${total}` : ''}`);
  console.log(`  perKey    ${perKey ?? 'none'} (strategy ${v.limits.strategy ?? 'queue'})`);
  console.log(`  fairness  ${v.limits.fairness ?? 'fifo'}`);
  console.log(`  rateLimit ${rateText(v.limits.rateLimit)}`);
  console.log(`  keyRateLimit ${rateText(v.limits.keyRateLimit)}`);
  for (const [m, g] of Object.entries(v.limits.machineGates ?? {}))
    console.log(`  machine ${JSON.stringify(m)}: gate ${g}, at most ${v.limits.gates?.[g] ?? 'unlimited'}`);
  for (const [m, r] of Object.entries(v.limits.machineRateLimits ?? {}))
    console.log(`  machine ${JSON.stringify(m)}: rateLimit ${rateText(r)}`);
  for (const g of v.gates ?? []) console.log(`  gate ${g.gate}: running ${g.running}, waiting ${g.waiting}`);
  for (const k of v.keys)
    console.log(
      `  key ${JSON.stringify(k.key)}: running ${k.running}, waiting ${k.waiting}${k.paused ? ' (paused)' : ''}`,
    );
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
  for (const action of ['pause-key', 'resume-key'] as const)
    cmd.addCommand(
      new Command(action)
        .description(
          action === 'pause-key'
            ? "hold one concurrency key's jobs in its line (its running jobs finish; other keys run)"
            : "let a paused key's jobs run again",
        )
        .argument('<queue>', 'the queue (all its partitions)')
        .argument('<key>', 'the concurrency key')
        .action(async (queue: string, key: string) => {
          await withBackend(globals(), async (backend) => {
            await backend.pauseKey(queue, key, action === 'pause-key');
            console.log(`queue '${queue}' key '${key}': ${action === 'pause-key' ? 'paused' : 'resumed'}`);
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
        '--rate-limit <limit/perMs[+burst][,skip]>',
        "throttle: at most limit (+ burst) starts per perMs, e.g. 100/1000+10; ',skip' cancels a job over it ('none' clears it)",
        rateArg('rate-limit'),
      )
      .option(
        '--key-rate-limit <limit/perMs[+burst][,skip]>',
        "throttle of each concurrency key on its own, as --rate-limit ('none' clears it)",
        rateArg('key-rate-limit'),
      )
      .option('--machine <name=N|name=shared:S|name=none>', "one machine's limit (repeatable)", machineArg)
      .option(
        '--machine-rate-limit <name=limit/perMs[+burst][,skip]|name=none>',
        "one machine's own throttle, as --rate-limit (repeatable)",
        machineRateArg,
      )
      .option(
        '--shared <name=N|name=none>',
        'a limit shared by the machines naming it (repeatable)',
        sharedArg,
      )
      .option('--strategy <s>', 'for a job whose key is full: queue, cancelNewest or cancelInProgress')
      .option(
        '--fairness <f>',
        'between concurrency keys: roundRobin (alternate the keys) or fifo (queue order)',
      )
      .option('--json', 'print as JSON')
      .action(async (queue: string, opts: CliLimits) => {
        const set =
          opts.total !== undefined ||
          opts.perKey !== undefined ||
          opts.rateLimit !== undefined ||
          opts.keyRateLimit !== undefined ||
          opts.machine !== undefined ||
          opts.machineRateLimit !== undefined ||
          opts.shared !== undefined ||
          opts.strategy !== undefined ||
          opts.fairness !== undefined;
        const change: QueueLimitsChange | undefined = set
          ? {
              concurrency: {
                ...(opts.total !== undefined ? { total: opts.total } : {}),
                ...(opts.perKey !== undefined ? { perKey: opts.perKey } : {}),
                ...(opts.strategy !== undefined ? { strategy: opts.strategy } : {}),
                ...(opts.fairness !== undefined ? { fairness: opts.fairness } : {}),
              },
              ...(opts.rateLimit !== undefined ? { rateLimit: opts.rateLimit } : {}),
              ...(opts.keyRateLimit !== undefined ? { keyRateLimit: opts.keyRateLimit } : {}),
              ...(machinesChange(opts) !== undefined ? { machines: machinesChange(opts) } : {}),
              ...(opts.shared !== undefined ? { shared: opts.shared } : {}),
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
