// The loop behind --watch and --follow: calls `step` every `intervalMs` until it returns true
// (the job finished) or the user presses Ctrl-C (then exit code 130). Polling a job's record
// is one HMGET-sized read: cheap enough at a few per second, and it needs no second connection.

import { EXIT } from './CliError.js';

export async function pollUntil(intervalMs: number, step: () => Promise<boolean>): Promise<void> {
  let interrupted = false;
  let wake: (() => void) | undefined;
  const onSigint = () => {
    interrupted = true;
    wake?.();
  };
  process.on('SIGINT', onSigint);
  try {
    while (!interrupted) {
      if (await step()) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, intervalMs);
      });
    }
    process.exitCode = EXIT.interrupted;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
