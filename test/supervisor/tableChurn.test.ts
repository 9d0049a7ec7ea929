// The supervisor's per-job tables MUST NOT keep finished jobs alive through the young
// generation's collections (src/supervisor/IdTable.ts: a Map whose entries churn keeps every
// table it replaced, and the jobs in them, until a full GC). Measured by V8 itself: a child
// churns the table under --trace-gc-nvp and the test sums what its scavenges promoted. Bytes
// the GC counts, not timings: the same on a loaded machine. With a Map, much of what the jobs
// allocate is promoted (a third or more, measured); with nothing holding them, 1-3%.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { TSX } from '../support/tsx.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/tableChurn.ts', import.meta.url));

/** What the child's scavenges allocated and promoted, in bytes. */
async function churn(table: string): Promise<{ allocated: number; promoted: number }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--trace-gc-nvp', '--expose-gc', ...TSX, FIXTURE, table],
    { maxBuffer: 64 << 20 },
  );
  let allocated = 0;
  let promoted = 0;
  for (const line of stdout.split('\n')) {
    if (!line.includes(' gc=s ')) continue; // scavenges only (the forced full GCs promote all that lives)
    allocated += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
  return { allocated, promoted };
}

for (const [table, what] of [
  ['running', 'the running jobs (RunningJobs.running)'],
  ['writes', "the writes' tables (CommitWrites)"],
] as const) {
  test(`${what} let finished jobs die young`, async () => {
    const { allocated, promoted } = await churn(table);
    // The churn allocates ~300 MB: scavenges happened, so a ratio exists to judge.
    assert.ok(allocated > 100 << 20, `the child allocated only ${allocated} bytes`);
    const share = promoted / allocated;
    assert.ok(share < 0.1, `${(share * 100).toFixed(1)}% of what the jobs allocated was promoted`);
  });
}
