// defineJob's `sandbox` option: which module a sandbox thread imports and which of its exports
// is the work, checked when the job is defined. The thread cannot be handed the work function
// itself (functions do not cross threads): like BullMQ's sandboxed processors, which take a file
// path, it imports a module by URL and takes the work from it.

import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ResourceLimits } from 'node:worker_threads';
import { DefinitionError } from '../../errors.js';

export interface SandboxOptions {
  /**
   * The module the thread imports: a file URL (`import.meta.url`, or
   * `new URL('./resize.js', import.meta.url)`) or an absolute path. It runs again in each
   * thread: it MUST NOT start anything when imported (keep the Supervisor in another module).
   */
  module: URL | string;
  /**
   * The export that is the work: a function (called as `work` is, with the same arguments), or
   * a job definition (its `work` runs). Default: the export that is this job's definition.
   */
  export?: string;
  /** The thread's heap limits: over them, the attempt fails with ERR_WORKER_OUT_OF_MEMORY. */
  resourceLimits?: ResourceLimits;
}

/** `'thread'`: the module that called defineJob, and the export that is this definition. */
export type SandboxOption = 'thread' | SandboxOptions;

/** What a sandbox thread is told to run. */
export interface SandboxSpec {
  readonly href: string;
  readonly exportName: string | undefined;
  readonly jobName: string;
  readonly resourceLimits: ResourceLimits | undefined;
}

/** The file URL of the module whose code called `fn` (from the stack), or undefined. */
export function callerModule(fn: (...args: never[]) => unknown): string | undefined {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, fn);
  const frame = holder.stack?.split('\n')[1] ?? '';
  const m = /\(?((?:file:\/\/|\/)[^()]+?):\d+:\d+\)?\s*$/.exec(frame);
  if (!m) return undefined;
  return m[1]!.startsWith('file:') ? m[1] : pathToFileURL(m[1]!).href;
}

export function resolveSandbox(
  option: unknown,
  where: string,
  jobName: string,
  caller: string | undefined,
): SandboxSpec {
  const bad = (why: string) =>
    new DefinitionError(`${where}: sandbox ${why}`, { machine: jobName, field: 'sandbox' });
  if (option === 'thread') {
    if (caller === undefined)
      throw bad(
        "'thread' could not tell which module called defineJob: pass sandbox: { module: import.meta.url }",
      );
    return { href: caller, exportName: undefined, jobName, resourceLimits: undefined };
  }
  if (typeof option !== 'object' || option === null)
    throw bad(`must be 'thread' or { module, export? } (got ${JSON.stringify(option)})`);
  const o = option as Partial<SandboxOptions>;
  let href: string;
  if (o.module instanceof URL) href = o.module.href;
  else if (typeof o.module === 'string' && o.module.startsWith('file:')) href = o.module;
  else if (typeof o.module === 'string' && isAbsolute(o.module)) href = pathToFileURL(o.module).href;
  else throw bad('module must be a file URL or an absolute path (e.g. import.meta.url)');
  if (!href.startsWith('file:')) throw bad(`module must be a file: URL (got ${href})`);
  if (o.export !== undefined && (typeof o.export !== 'string' || o.export === ''))
    throw bad('export must be the name of an export');
  return { href, exportName: o.export, jobName, resourceLimits: o.resourceLimits };
}
