// `machinist schedules` (each schedule with its text, next ticks and last job) and `machinist
// schedule set|pause|resume|rm|trigger|backfill` (docs/schedules.md), through the backend (a
// store's Client, or the /schedules routes).

import { Command, InvalidArgumentError } from 'commander';
import { withBackend, type GlobalOptions } from '../connect.js';
import { integer } from '../parseOptions.js';
import { json, table, time } from '../format.js';
import { readJson } from '../readInput.js';
import {
  OVERLAP_POLICIES,
  type OverlapPolicy,
  type ScheduleOptions,
} from '../../client/schedules/scheduleSpec.js';
import type { ScheduleInfo } from '../../client/schedules/ScheduleClient.js';
import { timeArg } from '../backend/timeArg.js';

function overlapOf(value: string): OverlapPolicy {
  if (!(OVERLAP_POLICIES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${OVERLAP_POLICIES.join(', ')}, got '${value}'.`);
  return value as OverlapPolicy;
}

function show(s: ScheduleInfo): string {
  const lines = [
    `${s.id}: ${s.text}${s.paused ? `  PAUSED${s.note ? ` (${s.note})` : ''}` : ''}`,
    `  machine ${s.spec.machine} on queue ${s.spec.queue}, overlap ${s.spec.overlap}${s.spec.pauseOnFailure ? ', pauses on failure' : ''}`,
    `  next    ${s.nextTicks.map((t) => time(t)).join(', ') || '-'}`,
    `  last    ${s.lastJob ? `${s.lastJob.id} (tick ${time(s.lastJob.at)})` : '-'}`,
    `  ticks   ${s.started} started, ${s.skipped} skipped, ${s.missed} missed`,
  ];
  return lines.join('\n');
}

export function schedulesCommand(globals: () => GlobalOptions): Command {
  return new Command('schedules')
    .description('list the schedules with their next ticks (docs/schedules.md)')
    .option('--json', 'print them as JSON')
    .action(async (opts: { json?: boolean }) => {
      await withBackend(globals(), async (backend) => {
        const all = await backend.schedules();
        if (opts.json) return void console.log(json(all));
        if (all.length === 0) return void console.log('no schedules');
        console.log(
          table(
            ['ID', 'WHEN', 'MACHINE', 'NEXT', 'LAST JOB', 'STATE'],
            all.map((s) => [
              s.id,
              s.text,
              s.spec.machine,
              time(s.nextTicks[0]),
              s.lastJob?.id ?? '-',
              s.paused ? `paused${s.note ? `: ${s.note}` : ''}` : 'active',
            ]),
          ),
        );
      });
    });
}

interface SetOptions {
  cron?: string;
  every?: number;
  machine: string;
  input?: string;
  queue?: string;
  tz?: string;
  overlap?: OverlapPolicy;
  catchup?: number;
  jitter?: number;
  start?: string;
  end?: string;
  paused?: boolean;
  note?: string;
  pauseOnFailure?: boolean;
}

export function scheduleCommand(globals: () => GlobalOptions): Command {
  const cmd = new Command('schedule').description(
    'create, change, pause, resume, remove, trigger or backfill a schedule',
  );
  cmd
    .command('set')
    .description('create or update a schedule (an upsert)')
    .argument('<id>', 'schedule id')
    .requiredOption('-m, --machine <name>', 'the machine each tick runs')
    .option('--cron <pattern>', "cron pattern (5 fields, or 6 with seconds first), e.g. '30 2 * * *'")
    .option('--every <ms>', 'or an interval in ms (at least 100)', integer(1))
    .option('-i, --input <json>', 'input of each tick’s job: JSON, @file or - for stdin')
    .option('-q, --queue <name>', 'queue (default: default)')
    .option('--tz <zone>', 'IANA time zone of the cron (default UTC)')
    .option('--overlap <policy>', `${OVERLAP_POLICIES.join('|')} (default skip)`, overlapOf)
    .option('--catchup <ms>', 'catch-up window in ms (default 60000)', integer(0))
    .option('--jitter <ms>', 'delay each tick’s job by a stable amount below this', integer(0))
    .option('--start <time>', 'no tick before this (ms or ISO 8601)')
    .option('--end <time>', 'no tick after this (ms or ISO 8601)')
    .option('--paused', 'create or keep it paused')
    .option('--note <text>', 'why it is paused')
    .option(
      '--pause-on-failure',
      'pause the schedule when a tick’s job ends failed (note: the job and its error)',
    )
    .action(async (id: string, o: SetOptions) => {
      const options: ScheduleOptions = { machine: o.machine };
      if (o.cron !== undefined) options.cron = o.cron;
      if (o.every !== undefined) options.everyMs = o.every;
      if (o.input !== undefined) options.input = await readJson(o.input, 'input');
      if (o.queue !== undefined) options.queue = o.queue;
      if (o.tz !== undefined) options.timezone = o.tz;
      if (o.overlap !== undefined) options.overlap = o.overlap;
      if (o.catchup !== undefined) options.catchupWindowMs = o.catchup;
      if (o.jitter !== undefined) options.jitterMs = o.jitter;
      if (o.start !== undefined) options.startAt = timeArg(o.start);
      if (o.end !== undefined) options.endAt = timeArg(o.end);
      if (o.paused) options.paused = true;
      if (o.note !== undefined) options.note = o.note;
      if (o.pauseOnFailure) options.pauseOnFailure = true;
      await withBackend(globals(), async (backend) =>
        console.log(show(await backend.setSchedule(id, options))),
      );
    });
  cmd
    .command('pause')
    .description('pause a schedule (no tick fires while paused)')
    .argument('<id>', 'schedule id')
    .option('--note <text>', 'why')
    .action(async (id: string, o: { note?: string }) => {
      await withBackend(globals(), async (backend) =>
        console.log(show(await backend.pauseSchedule(id, o.note))),
      );
    });
  cmd
    .command('resume')
    .description('resume a paused schedule from the next tick after now')
    .argument('<id>', 'schedule id')
    .action(async (id: string) => {
      await withBackend(globals(), async (backend) => console.log(show(await backend.resumeSchedule(id))));
    });
  cmd
    .command('rm')
    .description('remove a schedule (its jobs stay)')
    .argument('<id>', 'schedule id')
    .action(async (id: string) => {
      await withBackend(globals(), async (backend) => {
        await backend.removeSchedule(id);
        console.log(`removed schedule ${id}`);
      });
    });
  cmd
    .command('trigger')
    .description('run a schedule once now, obeying its overlap policy')
    .argument('<id>', 'schedule id')
    .action(async (id: string) => {
      await withBackend(globals(), async (backend) => {
        const job = await backend.triggerSchedule(id);
        console.log(job ?? 'nothing started: the last job is unfinished and the overlap policy skips');
      });
    });
  cmd
    .command('backfill')
    .description('run the ticks of a past range (ms or ISO 8601), at most 10,000')
    .argument('<id>', 'schedule id')
    .argument('<from>', 'first time of the range')
    .argument('<to>', 'last time of the range')
    .option('--overlap <policy>', `${OVERLAP_POLICIES.join('|')} (default allowAll)`, overlapOf)
    .action(async (id: string, from: string, to: string, o: { overlap?: OverlapPolicy }) => {
      await withBackend(globals(), async (backend) => {
        const ids = await backend.backfillSchedule(id, from, to, o.overlap);
        console.log(`${ids.length} job${ids.length === 1 ? '' : 's'} started`);
        for (const j of ids) console.log(j);
      });
    });
  return cmd;
}
