// The one error the CLI prints as is: a message naming the problem, and the exit code to use.
// Exit codes (docs/cli.md): 0 success; 1 the operation failed (a job that ended failed or
// cancelled under --wait, a refused call, Redis unreachable); 2 a usage error (an unknown
// option, a bad argument, input that is not JSON); 3 no such job or machine; 130 interrupted
// (Ctrl-C on a --watch/--follow); 143 a worker that had to force running jobs at shutdown.

import { MachinistError } from '../errors.js';
import { CODE } from '../errorCodes.js';

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  notFound: 3,
  interrupted: 130,
  forced: 143,
} as const;

/** A MachinistError (code CLI_ERROR) so that every error has a code; describeError prints it as is. */
export class CliError extends MachinistError {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(CODE.CLI_ERROR, message);
  }
}
