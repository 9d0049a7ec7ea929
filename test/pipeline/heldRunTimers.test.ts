// A held run's timers (THE EARLY LEASE: pipeline/heldRun.ts ITS TIMER): a held job waits for
// minutes, 25k of them a worker, so what it keeps armed is counted. On a bare ActiveJob claimed
// held (ClaimedJob.holdUntil), whose host ends its hold as the pump's HeldJobs does; on XState
// actors and on the compiled runner.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { definePipeline } from '../../src/index.js';
import { ActiveJob } from '../../src/runtime/ActiveJob.js';
import type { CommitOp } from '../../src/store/types.js';
import { claimedJob, hostAt, runOn } from '../support/bareJob.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const snapshotOf = (op: CommitOp | undefined) => (op as { snapshot: string }).snapshot;
const logOf = (op: CommitOp) =>
  ((op as { log?: string[] }).log ?? []).map((e) => (JSON.parse(e) as { type: string }).type);
const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
const runtime = (compile: boolean) => (compile ? 'compiled' : 'XState actors');

/** `machine` parked by a first run, then claimed held until `holdMs` from now: its writes, and
 * when its hold ended (the pump's woke). */
async function heldRun(
  machine: Parameters<typeof definePipeline>[0]['machine'],
  compile: boolean,
  holdMs: number,
) {
  const def = definePipeline({ name: 'm', compile, machine });
  assert.equal(Boolean(def.compiled), compile);
  const first = runOn(claimedJob({ version: def.version, attempt: 1, snapshot: undefined }));
  await def.runAttempt(first.job, {}, 60_000, hostAt());
  assert.equal(first.writes.at(-1)!.kind, 'park');
  const writes: { op: CommitOp; at: number }[] = [];
  const woke: number[] = [];
  const job = new ActiveJob(
    claimedJob({
      version: def.version,
      attempt: 2,
      snapshot: snapshotOf(first.writes.at(-1)),
      holdUntil: Date.now() + holdMs,
    }),
    {
      queue: 'q',
      write: (op) => {
        writes.push({ op, at: Date.now() });
        return Promise.resolve(true);
      },
      woke: (j) => {
        woke.push(Date.now());
        j.holding = false; // the pump ends the hold (HeldJobs.end)
      },
    },
  );
  const before = timeouts();
  const run = def.runAttempt(job, {}, 60_000, hostAt());
  return { job, run, writes, woke, armed: () => timeouts() - before };
}

describe('a held run keeps one timer while it waits', () => {
  for (const compile of [false, true])
    it(`takes its slot at its timer, and writes its ending alone (${runtime(compile)})`, async () => {
      const due = Date.now() + 400;
      const r = await heldRun(
        setup({}).createMachine({
          initial: 'waiting',
          states: { waiting: { after: { 400: 'end' } }, end: { type: 'final' } },
        }),
        compile,
        5_000,
      );
      await sleep(150);
      // The compiled driver's timer tells the run as it fires (MachineDriver.timerAt): the held
      // run arms none of its own; XState's do not tell, so it has one beside them. Its log-only
      // entries wait for its hold to end (holdEnded), with no timer until then.
      assert.equal(r.armed(), compile ? 1 : 2, 'timers armed while it waits');
      assert.equal(r.writes.length, 0, 'nothing written while it waits');
      await r.run;
      assert.deepEqual(
        r.writes.map((w) => w.op.kind),
        ['done'],
      );
      assert.ok(logOf(r.writes[0]!.op).includes('resumed'));
      // Compiled: told by its machine's timer as it fires, once its event is taken. XState: its
      // own timer and the machine's fire at the same time, in either order (the machine's first,
      // its ending ends the hold: the pump's write, not a wake).
      if (compile) assert.equal(r.woke.length, 1, 'its hold ended at its timer');
      else assert.ok(r.woke.length <= 1, 'its hold ended once at most');
      for (const at of r.woke) {
        assert.ok(at >= due - 5, `woke ${due - at} ms before its timer`);
        assert.ok(at <= r.writes[0]!.at, 'it took its slot at its timer, before its ending');
      }
    });
});
