// Turns anything a command throws into the one line the CLI prints (after `machinist: `) and
// its exit code. The same problem reads the same whichever command met it: an unknown job is
// `no job <id>` for status, events, send, cancel and chart alike.

import { CommanderError } from 'commander';
import { JobNotFoundError, MachinistError } from '../errors.js';
import { CliError, EXIT } from './CliError.js';
import { CODE } from '../errorCodes.js';

export function describeError(err: unknown): { message: string; exitCode: number } {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  if (err instanceof JobNotFoundError)
    return {
      message: `no job ${err.jobId}${err.queue ? ` in queue '${err.queue}'` : ''}`,
      exitCode: EXIT.notFound,
    };
  if (err instanceof CommanderError)
    // Commander's own text starts with "error: "; the prefix is ours.
    return { message: err.message.replace(/^error: /, '').trim(), exitCode: EXIT.usage };
  if (err instanceof MachinistError) {
    const exitCode =
      err.code === CODE.UNKNOWN_MACHINE || err.code === CODE.SCHEDULE_NOT_FOUND
        ? EXIT.notFound
        : err.code === CODE.INVALID_INPUT || err.code === CODE.INVALID_SCHEDULE
          ? EXIT.usage
          : EXIT.failed;
    return { message: `${err.message} [${err.code}]`, exitCode };
  }
  if (err instanceof Error) return { message: err.message || err.name, exitCode: EXIT.failed };
  return { message: String(err), exitCode: EXIT.failed };
}
