// Runs one attempt's work in a sandbox thread of its own (worker_threads): work that blocks
// the event loop or crashes ends that thread, not the worker and its other jobs.
//
// One thread per attempt, not a pool: a thread that timed out or crashed must be terminated
// anyway, and a fresh one keeps no state of an earlier attempt (module globals, a half-done
// loop). Starting one costs a few ms plus the import of the job's module (bench figures in
// docs/guide.md, Sandboxed jobs): small beside the work a job is sandboxed for.
//
// How an attempt ends, whichever comes first:
//   answer    the thread posts the result or the work's error: the attempt has it.
//   crash     an error nothing caught in the thread ('error' event): the attempt fails with it.
//   exit      the thread exits with no answer (process.exit in the job's code): SANDBOX_EXITED.
//   abort     the job's signal fires (timeout, cancel, shutdown, lease lost): the thread's signal
//             fires too, and the thread is terminated ABORT_GRACE_MS later (at once if blocked:
//             termination stops even an endless loop).
// The thread is terminated at every end: none outlives its attempt.

import { Worker } from 'node:worker_threads';
import { SandboxError } from '../../errors.js';
import type { SandboxSpec } from './sandboxSpec.js';
import {
  crossError,
  reviveError,
  type FromThread,
  type SandboxArgs,
  type SandboxStart,
} from './sandboxMessages.js';
import { CODE } from '../../errorCodes.js';

/** How long an aborted thread may take to end its work itself before it is terminated. */
const ABORT_GRACE_MS = 1000;
const FROM_SOURCE = import.meta.url.endsWith('.ts');
// Beside this file, as .ts when running from source (tsx) and .js when built.
const ENTRY = new URL(`./sandboxThread${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);

/**
 * What the thread starts from. TypeScript run through tsx (Machinist from source, or a job's
 * module in .ts) needs tsx's loader in the thread too, and Node 20 does not carry loader hooks
 * into worker threads: such a thread starts by registering tsx (resolved from here), then
 * imports the entry. Without tsx to be found, the thread starts plainly (and a .ts module fails
 * its attempt with Node's own ERR_UNKNOWN_FILE_EXTENSION).
 */
function threadStart(href: string): { entry: URL | string; eval: boolean } {
  if (!FROM_SOURCE && !/\.[cm]?tsx?$/.test(href)) return { entry: ENTRY, eval: false };
  let tsx: string;
  try {
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {
    return { entry: ENTRY, eval: false };
  }
  const code = `await (await import(${JSON.stringify(tsx)})).register();\nawait import(${JSON.stringify(ENTRY.href)});`;
  return { entry: code, eval: true };
}

/** The work args a sandboxed attempt gets (runSimpleJob's), of which the signal and progress stay here. */
export interface SandboxWorkArgs extends SandboxArgs {
  signal: AbortSignal;
  progress: (value: unknown) => void;
}

/** A `work` function that runs the sandbox spec's work in a thread per call. */
export function sandboxWork(spec: SandboxSpec): (args: SandboxWorkArgs) => Promise<unknown> {
  return (args) => runInSandbox(spec, args);
}

function runInSandbox(spec: SandboxSpec, args: SandboxWorkArgs): Promise<unknown> {
  const { signal, progress } = args;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  const start: SandboxStart = {
    href: spec.href,
    exportName: spec.exportName,
    jobName: spec.jobName,
    args: {
      input: args.input,
      loaded: args.loaded,
      attempt: args.attempt,
      jobId: args.jobId,
      queue: args.queue,
      idempotencyKey: args.idempotencyKey,
    },
  };
  return new Promise((resolve, reject) => {
    // Throws at once (DataCloneError) when what `load` returned cannot cross to the thread.
    const { entry, eval: isCode } = threadStart(spec.href);
    const thread = new Worker(entry, {
      eval: isCode,
      workerData: start,
      resourceLimits: spec.resourceLimits,
    });
    let ended = false;
    const end = (settle: () => void) => {
      if (ended) return;
      ended = true;
      signal.removeEventListener('abort', onAbort);
      void thread.terminate();
      settle();
    };
    const onAbort = () => {
      if (ended) return;
      thread.postMessage({ type: 'abort', reason: crossError(signal.reason) });
      setTimeout(() => end(() => reject(signal.reason as Error)), ABORT_GRACE_MS).unref();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    thread.on('message', (m: FromThread) => {
      if (ended) return;
      if (m.type === 'progress') {
        try {
          progress(m.value);
        } catch (err) {
          // A report the job cannot store (ActiveJob.progress throws at the call): as in-process.
          end(() => reject(err));
        }
      } else if (m.type === 'done') end(() => resolve(m.output));
      else end(() => reject(reviveError(m.error)));
    });
    thread.on('error', (err) => end(() => reject(err)));
    thread.on('exit', (code) =>
      end(() =>
        reject(
          new SandboxError(
            CODE.SANDBOX_EXITED,
            `sandbox: the thread running job ${args.jobId} exited with code ${code} before its work ended`,
            { jobId: args.jobId, machine: spec.jobName },
          ),
        ),
      ),
    );
  });
}
