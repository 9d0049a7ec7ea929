// `machinist send <id> <event-json|@file|->`: delivers an event to a pipeline job.

import { Command } from 'commander';
import { CliError, EXIT } from '../CliError.js';
import { withBackend, type GlobalOptions } from '../connect.js';
import { integer } from '../parseOptions.js';
import { readJson } from '../readInput.js';

interface SendCliOptions {
  queue?: string;
  eventId?: string;
  to?: string;
  untilAccepted?: boolean;
  ttlMs?: number;
  maxPayloadBytes?: number;
}

export function sendCommand(globals: () => GlobalOptions): Command {
  return new Command('send')
    .description('send an event to a running or parked pipeline job')
    .argument('<id>', 'job id')
    .argument(
      '<event>',
      'the event as JSON ({"type":"APPROVE",...}), @file to read it from a file, - for stdin',
    )
    .option('-q, --queue <name>', "the job's queue (default: looked up across queues)")
    .option('--event-id <id>', 'deliver at most once per id (default: a fresh one)')
    .option('--to <path>', "a child actor's id path ('review/signature') instead of the job's machine")
    .option('--until-accepted', 'keep the event until a state takes it (or --ttl-ms passes)')
    .option('--ttl-ms <ms>', 'with --until-accepted: drop it after this long', integer(1))
    .option('--max-payload-bytes <n>', 'largest event accepted (default 1 MiB)', integer(1))
    .action(async (id: string, eventArg: string, opts: SendCliOptions) => {
      const event = await readJson(eventArg, 'event');
      if (
        !event ||
        typeof event !== 'object' ||
        Array.isArray(event) ||
        typeof (event as { type?: unknown }).type !== 'string'
      )
        throw new CliError('event must be a JSON object with a string "type"', EXIT.usage);
      const typed = event as { type: string };
      await withBackend(
        globals(),
        async (backend) => {
          await backend.send(id, typed, {
            queue: opts.queue,
            eventId: opts.eventId,
            to: opts.to,
            until: opts.untilAccepted ? 'accepted' : undefined,
            ttlMs: opts.ttlMs,
          });
          console.log(`sent ${typed.type} to ${id}`);
        },
        { maxPayloadBytes: opts.maxPayloadBytes },
      );
    });
}
