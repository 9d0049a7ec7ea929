// Every process a chaos run starts: spawned detached (a process group of its own, so a signal
// reaches the process and anything it started), signalled by group, and killed whatever way the
// run ends (a failed scenario, an exception, Ctrl-C). Nothing a chaos run starts outlives it.

import { spawn, type ChildProcess } from 'node:child_process';

export interface Proc {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves when the process has exited, with how. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  alive(): boolean;
  /** Sends `signal` to the process group (the process and its children). */
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL to the group, then waits for the exit. */
  kill(): Promise<void>;
}

const live = new Set<Proc>();

export function spawnProc(
  command: string,
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    stdout?: 'pipe' | 'ignore';
    stderr?: 'inherit' | 'ignore' | 'pipe';
  } = {},
): Proc {
  const child = spawn(command, args, {
    detached: true,
    env: options.env ?? process.env,
    stdio: ['ignore', options.stdout ?? 'ignore', options.stderr ?? 'inherit'],
  });
  if (child.pid === undefined) {
    // The 'error' event follows (ENOENT...): the throw below reports it, not a crash of the run.
    child.once('error', () => {});
    throw new Error(`could not start ${command}: is it installed (on PATH)?`);
  }
  const pid = child.pid;
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>(
    (resolve) => {
      child.once('exit', (code, signal) => {
        done = true;
        live.delete(proc);
        resolve({ code, signal, at: Date.now() });
      });
      child.once('error', () => {
        done = true;
        live.delete(proc);
        resolve({ code: -1, signal: null, at: Date.now() });
      });
    },
  );
  const proc: Proc = {
    pid,
    child,
    exited,
    alive: () => !done,
    signal: (signal) => {
      if (done) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // The group is gone already (the process exited between the check and the kill).
      }
    },
    kill: async () => {
      proc.signal('SIGKILL');
      await exited;
    },
  };
  live.add(proc);
  return proc;
}

/** SIGKILL to every process still running (also stopped ones: SIGKILL ends a stopped process). */
export function killAll(): void {
  for (const p of [...live]) p.signal('SIGKILL');
}

/** Waits for every process started so far to be gone. */
export async function reapAll(): Promise<void> {
  killAll();
  await Promise.all([...live].map((p) => p.exited));
}

process.once('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(sig, () => {
    killAll();
    process.exit(130);
  });
}
