// Whether this thread is a sandbox thread (runInSandbox.ts): the module a sandboxed job names is
// imported again in each one, and one that starts a Supervisor when imported (a single-file
// worker with sandbox: 'thread') would start a second worker in every thread. Supervisor.start()
// refuses there instead, and the attempt fails saying why.

const MARK = Symbol.for('machinist.sandboxThread');

/** Called by the thread's entry before it imports the job's module. */
export function markSandboxThread(): void {
  (globalThis as Record<symbol, unknown>)[MARK] = true;
}

export function inSandboxThread(): boolean {
  return (globalThis as Record<symbol, unknown>)[MARK] === true;
}
