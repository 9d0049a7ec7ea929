// The entry of a sandbox thread (worker_threads): imports the job's module, takes its work
// (sandboxSpec.ts), runs it once with the attempt's arguments, and posts the result or the
// error. The signal and progress cross as messages (sandboxMessages.ts). The thread stays up
// after its answer: the attempt's side ends it (runInSandbox.ts), so the answer is never lost
// to an exit racing it.

import { parentPort, workerData } from 'node:worker_threads';
import { SandboxError } from '../../errors.js';
import { markSandboxThread } from './sandboxThreadMark.js';
import {
  crossError,
  reviveError,
  type FromThread,
  type SandboxStart,
  type ToThread,
} from './sandboxMessages.js';
import { CODE } from '../../errorCodes.js';

type Work = (args: unknown) => unknown;

function isJobDefinition(v: unknown): v is { kind: 'job'; name: string; work: Work } {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'job';
}

/** The work the start data names, or SANDBOX_LOAD saying what the module lacks. */
export function findWork(mod: Record<string, unknown>, start: Omit<SandboxStart, 'args'>): Work {
  const { href, exportName, jobName } = start;
  if (exportName !== undefined) {
    const v = mod[exportName];
    if (typeof v === 'function') return v as Work;
    if (isJobDefinition(v)) return v.work;
    throw new SandboxError(
      CODE.SANDBOX_LOAD,
      `sandbox: ${href} has no export '${exportName}' that is a function or a job definition`,
      { machine: jobName },
    );
  }
  for (const v of Object.values(mod))
    for (const d of Array.isArray(v) ? (v as unknown[]) : [v])
      if (isJobDefinition(d) && d.name === jobName) return d.work;
  throw new SandboxError(
    CODE.SANDBOX_LOAD,
    `sandbox: no export of ${href} is the job definition '${jobName}': export it, or pass sandbox: { module, export }`,
    { machine: jobName },
  );
}

async function main(port: NonNullable<typeof parentPort>, start: SandboxStart): Promise<void> {
  const controller = new AbortController();
  port.on('message', (m: ToThread) => {
    if (m.type === 'abort') controller.abort(reviveError(m.reason));
  });
  const post = (m: FromThread) => port.postMessage(m);
  markSandboxThread();
  try {
    const work = findWork((await import(start.href)) as Record<string, unknown>, start);
    const output = await work({
      ...start.args,
      signal: controller.signal,
      progress: (value: unknown) => post({ type: 'progress', value }),
    });
    post({ type: 'done', output });
  } catch (err) {
    // A work error, or an output no structured clone can carry (a function, a symbol).
    post({ type: 'error', error: crossError(err) });
  }
}

if (parentPort) await main(parentPort, workerData as SandboxStart);
