// A compiled pipeline resumed with its timer due already (issue 25's parked pipelines, all due at
// once) fires it at the next immediate: a setTimeout(0) waits at least 1 ms in Node, and a worker
// with a claim of woken jobs in hand sat idle through it. Here setTimeout is held (mock timers),
// so only a run that does not wait on one ends. Run on a bare ActiveJob (no store).

import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { definePipeline } from '../../src/index.js';
import type { CommitOp } from '../../src/store/types.js';
import type { AttemptHost } from '../../src/runtime/AttemptHost.js';
import { claimedJob, hostAt, runOn } from '../support/bareJob.js';

const at = 1_800_000_000_000;
const hostFixed = (now: number): AttemptHost => ({ ...hostAt(), now: () => now, latest: () => now });
const def = definePipeline({
  name: 'm',
  compile: true,
  machine: setup({ delays: { pause: 1000 } }).createMachine({
    id: 'w',
    initial: 'waiting',
    states: { waiting: { after: { pause: 'end' } }, end: { type: 'final' } },
  }),
});

/** Lets `n` turns of the event loop pass (immediates: not held by the mock). */
async function turns(n: number, until: () => boolean): Promise<void> {
  for (let i = 0; i < n && !until(); i++) await new Promise((r) => setImmediate(r));
}

describe('a compiled pipeline resumed with its timer due', () => {
  it('fires the timer at the next immediate, not at a setTimeout(0)', async () => {
    assert.ok(def.compiled);
    const first = runOn(claimedJob({ version: def.version, attempt: 1, snapshot: undefined }));
    await def.runAttempt(first.job, {}, 60_000, hostFixed(at));
    const parked = first.writes.at(-1) as CommitOp & { snapshot: string };
    assert.equal(parked.kind, 'park');
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const due = runOn(claimedJob({ version: def.version, attempt: 2, snapshot: parked.snapshot }));
      const run = def.runAttempt(due.job, {}, 60_000, hostFixed(at + 5_000));
      await turns(50, () => due.writes.length > 0);
      assert.deepEqual(
        due.writes.map((w) => w.kind),
        ['done'],
        'the resume ended, no setTimeout having run',
      );
      mock.timers.runAll();
      await run;
    } finally {
      mock.timers.reset();
    }
  });
});
