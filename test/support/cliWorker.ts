// A real `machinist worker` process (`node --import tsx src/cli/main.ts worker`) on a private
// redis-server and key prefix, logging JSON lines at info: what the stray-error and sandbox
// tests run their jobs in, as users do.

import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT, MAIN } from './cli.js';
import { eventually, type TestRedis } from './redis.js';
import { TSX } from './tsx.js';

export interface CliWorker {
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<string>;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** The pino lines it logged (JSON) so far. */
  logLines(): Record<string, unknown>[];
}

export async function startCliWorker(
  redis: TestRedis,
  prefix: string,
  jobs: string,
  ...args: string[]
): Promise<CliWorker> {
  const child = spawn(
    process.execPath,
    [
      ...TSX,
      MAIN,
      ...['--redis', redis.url, '--prefix', prefix],
      ...['worker', '--jobs', jobs, '--log-format', 'json', '--log-level', 'info'],
      ...['--lease-ms', '1000', '--heartbeat-ms', '250', '--reaper-interval-ms', '200'],
      ...args,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<string>((r) =>
    child.once('exit', (code, signal) => r(signal ? `signal ${signal}` : `code ${code}`)),
  );
  await eventually(() => out.includes('worker ready') || child.exitCode !== null, 20_000);
  if (!out.includes('worker ready')) throw new Error(`worker did not start: ${out}`);
  return {
    child,
    exited,
    output: () => out,
    logLines: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** SIGKILLs a worker that is still running (a test's cleanup; a no-op once it has exited). */
export function killCliWorker(w: CliWorker | undefined): void {
  if (w && w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
}
