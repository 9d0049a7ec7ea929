// Runs the `machinist` CLI as users do: a real child process (`node --import tsx src/cli/main.ts`,
// so no build is needed), with stdin given as text or a file, and its output and exit code.

import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TSX } from './tsx.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MAIN = 'src/cli/main.ts';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Text written to stdin, or `{ file }` piped into it. */
  stdin?: string | { file: string };
  env?: Record<string, string>;
}

export function spawnCli(args: string[], options: RunOptions = {}): ChildProcess {
  return spawn(process.execPath, [...TSX, MAIN, ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
}

export function runCli(args: string[], options: RunOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (typeof options.stdin === 'string') child.stdin!.end(options.stdin);
    else if (options.stdin) createReadStream(options.stdin.file).pipe(child.stdin!);
    else child.stdin!.end();
  });
}
