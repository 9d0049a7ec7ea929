// Stray errors: what a job's own code throws or rejects where nothing awaits it (a throw from a
// timer, a rejection no one handles). Node's default ends the process for them, and with it
// every other job in flight (they stall until their leases pass). A supervisor started with
// `isolateStrayErrors` runs each attempt inside an AsyncLocalStorage scope naming it, and one
// process-wide pair of `uncaughtException` / `unhandledRejection` handlers, shared by every such
// supervisor of the process, looks up the scope of the code that raised the error:
//
//   in an attempt still running   that attempt fails with the error (its retry policy applies),
//                                  logged at error with the jobId; the process goes on.
//   in an attempt that has ended  (work the attempt abandoned) logged at warn, once per attempt
//                                  (later ones at debug); nothing else to fail.
//   in no attempt                  logged at error; the process goes on, UNLESS the error is one
//                                  after which the process cannot be trusted (FATAL_CODES): then
//                                  it is logged at fatal and the process exits with code 1, as
//                                  Node would have (the leases of its jobs pass, and they re-run).
//
// Cost: on Node 20 a scope makes each `await` 0.4-0.8 us dearer (AsyncLocalStorage runs on
// promise hooks there); on Node 24 nothing measurable (bench/probes/strayScopeCost.ts). Hence an
// option, off by default for library users; the CLI's processes turn it on.
//
// Not attributed (logged as "in no attempt"): on Node 20, a throw inside a queueMicrotask
// callback (Node 20 runs it outside the queuing code's async context; Node 24 attributes it),
// and errors of code that captured no context (a native addon's callback).

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import { toError } from '../errors.js';

/** What the scope of one running attempt holds: whose it is, and how to fail it. */
export interface StrayScope {
  readonly jobId: string;
  readonly attempt: number;
  readonly log: Logger;
  /** Fails the attempt with `err`; false when it has ended already (nothing left to fail). */
  fail(err: Error): boolean;
  /** Stray errors seen after the attempt ended (only the first is logged at warn). */
  lateErrors?: number;
}

/**
 * Errors after which the process state cannot be trusted, so the process exits rather than
 * go on serving. Only what Node itself says is broken: ERR_INTERNAL_ASSERTION is a broken
 * invariant inside Node core. Everything else that reaches a handler left the process intact:
 * its stack unwound (a stack overflow included); what truly cannot be recovered (out of memory,
 * a native crash) ends the process before any JavaScript handler runs.
 */
export const FATAL_CODES: ReadonlySet<string> = new Set(['ERR_INTERNAL_ASSERTION']);

interface Shared {
  readonly scopes: AsyncLocalStorage<StrayScope>;
  /** The loggers of the supervisors listening now; the first logs errors of no attempt. */
  readonly listeners: Logger[];
  onException?: (err: unknown, origin: string) => void;
  onRejection?: (reason: unknown) => void;
}

// Kept on the global object under a registered symbol: two copies of the package in one
// process (two versions, or an ESM and a bundled copy) share one scope store and one pair of
// handlers, so each error is handled once and every attempt's scope is found.
const KEY = Symbol.for('machinist.strayErrors.v1');
const shared: Shared = ((globalThis as Record<symbol, Shared | undefined>)[KEY] ??= {
  scopes: new AsyncLocalStorage<StrayScope>(),
  listeners: [],
});

/** Runs `fn` (an attempt's run) inside `scope`: stray errors of anything it starts name it. */
export function runInStrayScope<T>(scope: StrayScope, fn: () => T): T {
  return shared.scopes.run(scope, fn);
}

/**
 * Runs `fn` outside any attempt's scope: for the supervisor's own machinery called from a job
 * (its writes), whose timers and callbacks serve every job, not the one that happened to call.
 */
export function outsideStrayScope<T>(fn: () => T): T {
  return shared.scopes.exit(fn);
}

/** What happened to one stray error (exported for the tests of the rules above). */
export function handleStrayError(thrown: unknown, origin: string): 'failed' | 'late' | 'logged' | 'fatal' {
  const err = toError(thrown);
  const scope = shared.scopes.getStore();
  if (scope !== undefined) {
    const ids = { err, jobId: scope.jobId, attempt: scope.attempt, origin };
    if (scope.fail(err)) {
      scope.log.error(
        ids,
        `stray error in job ${scope.jobId}: failing its attempt ${scope.attempt} (${err.message})`,
      );
      return 'failed';
    }
    scope.lateErrors = (scope.lateErrors ?? 0) + 1;
    const level = scope.lateErrors === 1 ? 'warn' : 'debug';
    scope.log[level](ids, `stray error from job ${scope.jobId} after its attempt ${scope.attempt} ended`);
    return 'late';
  }
  const log = shared.listeners[0];
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && FATAL_CODES.has(code)) {
    log?.fatal({ err, origin }, `fatal error outside any job (${code}): exiting`);
    process.exit(1);
    return 'fatal';
  }
  log?.error({ err, origin }, `stray error outside any job; the process goes on (${err.message})`);
  return 'logged';
}

/**
 * Turns the process-wide handlers on for one supervisor (the first caller installs them):
 * returns the function that turns them off again for it (the last one removes them).
 */
export function listenForStrayErrors(log: Logger): () => void {
  if (shared.listeners.length === 0) {
    shared.onException = (err, origin) => void handleStrayError(err, origin);
    shared.onRejection = (reason) => void handleStrayError(reason, 'unhandledRejection');
    process.on('uncaughtException', shared.onException);
    process.on('unhandledRejection', shared.onRejection);
  }
  shared.listeners.push(log);
  let listening = true;
  return () => {
    if (!listening) return;
    listening = false;
    shared.listeners.splice(shared.listeners.indexOf(log), 1);
    if (shared.listeners.length > 0) return;
    process.off('uncaughtException', shared.onException!);
    process.off('unhandledRejection', shared.onRejection!);
    shared.onException = shared.onRejection = undefined;
  };
}
