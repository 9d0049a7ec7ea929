// The probes' reading of a redis-server run under `valgrind --tool=callgrind
// --callgrind-out-file=FILE` (pid PID): counts zeroed before a measured span, then dumped and read
// after it. Instruction counts repeat on a busy machine, as times do not.

import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

/** Zeroes the server's counts: the next dump covers what runs from now on. */
export function zeroCounts(pid: string): void {
  execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
}

/** Dumps the counts since the last zeroing and returns the dump's path (FILE.<n>, the newest). */
export function dumpCounts(pid: string, file: string): string {
  execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' });
  const dir = dirname(file);
  const last = readdirSync(dir)
    .filter((f) => f.startsWith(`${basename(file)}.`))
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()))
    .at(-1)!;
  return resolve(dir, last);
}

/** Dumps the counts since the last zeroing and reads the instructions (Ir) of the dump. */
export function instructionsSinceZero(pid: string, file: string): number {
  const path = dumpCounts(pid, file);
  // Under load callgrind_control may return before the dump is whole: read it again until its
  // totals are there (a minute at most).
  let out = readFileSync(path, 'utf8');
  for (let i = 0; i < 600 && !/^(?:summary|totals): /m.test(out); i++) {
    execFileSync('sleep', ['0.1']);
    out = readFileSync(path, 'utf8');
  }
  const events = /^events: (.*)$/m.exec(out)![1]!.split(' ');
  const totals = /^(?:summary|totals): (.*)$/m.exec(out)![1]!.split(' ');
  return Number(totals[events.indexOf('Ir')]);
}
