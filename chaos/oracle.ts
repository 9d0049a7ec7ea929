// The oracle: what every process of a chaos test saw, one line per fact, appended with a
// synchronous write so that a fact is in the file before the process goes on (a SIGKILL a
// microsecond later does not lose it). One file per process; the checker reads them all.
//
// Lines (t: the machine's clock, ms, as the writer read it; pid: the writer's):
//   Q id kind key t          the producer's enqueue was acknowledged (key: idempotency key | -)
//   S id n t                 an event GO{n} sent to a job was acknowledged
//   X id result t            a cancel was sent (result: sent), acknowledged (true | false)
//   K id token pid t         a worker's commit claimed the job
//   E id part token pid t checked   a side effect of the job's work (part: which step);
//                            checked: when its run last found its lease sure (ActiveJob.leaseReady,
//                            SURE LEASE: a step starts only then), - if never
//   C id token pid t sent         a worker's `done` write was acknowledged as written
//   F id token pid kind t sent    another ending write (fail retry cancelled requeue park broken) written
//   P id token pid state t sent   a checkpoint (or park) written, at pipeline state `state`
//   R id token pid kind t sent    a write refused: the lease was lost
//   (t: when the reply was read; sent: when the commit was sent. Redis applies a write between
//   the two. A worker frozen after sending reads its reply late, so a write that Redis applied
//   before another worker's claim can have t after it: the takeover checks go by `sent`.)
//   W pid from to n          a reaper call sent at `from`, answered at `to`, requeued n jobs
//   CRASH pid t message      a worker process died of an error it did not handle (message: no spaces)
//   FAULT name pid|- from to a fault the test injected (pid: its target, - for all), times in ms

import { closeSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class OracleWriter {
  private readonly fd: number;
  constructor(dir: string, name: string) {
    this.fd = openSync(join(dir, `${name}.log`), 'a');
  }
  line(...fields: (string | number)[]): void {
    writeSync(this.fd, fields.join(' ') + '\n');
  }
  close(): void {
    closeSync(this.fd);
  }
}

export interface OracleLine {
  kind: string;
  f: string[];
}

/** Every line of every process's file in `dir` (each file in its own order). */
export function readOracle(dir: string): OracleLine[] {
  const out: OracleLine[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.log')) continue;
    for (const text of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (!text) continue;
      const f = text.split(' ');
      out.push({ kind: f[0]!, f: f.slice(1) });
    }
  }
  return out;
}
