// A held run's timers (THE EARLY LEASE: pipeline/heldRun.ts ITS TIMER): a held job waits for
// minutes, 25k of them a worker, so what it keeps armed is counted. On a bare ActiveJob claimed
// held (ClaimedJob.holdUntil), whose host ends its hold as the pump's HeldJobs does, and keeps
// its due timer waiting its turn when told to (THE GATE, supervisor/WakeGate.ts); on XState
// actors and on the compiled runner.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { definePipeline } from '../../src/index.js';
import { ActiveJob, type DeferredWake } from '../../src/runtime/ActiveJob.js';
import type { CommitOp } from '../../src/store/types.js';
import { claimedJob, hostAt, runOn } from '../support/bareJob.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const snapshotOf = (op: CommitOp | undefined) => (op as { snapshot: string }).snapshot;
const logOf = (op: CommitOp) =>
  ((op as { log?: string[] }).log ?? []).map((e) => (JSON.parse(e) as { type: string }).type);

/**
 * The timers armed from now on and still pending (neither fired nor cleared). Not the process's
 * count of Timeouts before and after: on a loaded host a timer of something else (the first
 * run's, the runner's) ended between the two readings, and the count read -1.
 */
function tallyTimers(): { live: () => number; restore: () => void } {
  const live = new Set<NodeJS.Timeout>();
  const set = globalThis.setTimeout;
  const clear = globalThis.clearTimeout;
  globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const t = set(
      (...a: unknown[]) => {
        live.delete(t);
        fn(...a);
      },
      ms,
      ...args,
    );
    live.add(t);
    return t;
  }) as typeof setTimeout;
  globalThis.clearTimeout = (t?: NodeJS.Timeout | string | number) => {
    live.delete(t as NodeJS.Timeout);
    clear(t);
  };
  return {
    live: () => live.size,
    restore: () => {
      globalThis.setTimeout = set;
      globalThis.clearTimeout = clear;
    },
  };
}
const runtime = (compile: boolean) => (compile ? 'compiled' : 'XState actors');

/** `machine` parked by a first run, then claimed held until `holdMs` from now: its writes, and
 * when its hold ended (the pump's woke). `gate`: the pump's THE GATE (JobHost.passWake);
 * `inbox`: what the job's inbox holds when the run reads it. */
async function heldRun(
  machine: Parameters<typeof definePipeline>[0]['machine'],
  compile: boolean,
  holdMs: number,
  { gate, inbox = [] }: { gate?: (wake: DeferredWake) => boolean; inbox?: string[] } = {},
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
      ...(gate ? { passWake: gate } : {}),
    },
  );
  const timers = tallyTimers();
  const host = { ...hostAt(), readInbox: async () => inbox.splice(0) };
  const run = def.runAttempt(job, {}, 60_000, host).finally(timers.restore);
  return { job, run, writes, woke, armed: timers.live };
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
      // The machine's timer tells the run as it fires (MachineDriver.timerAt; XState's through
      // the held run's clock, heldClock.ts): the held run arms none of its own. Its log-only
      // entries wait for its hold to end (holdEnded), with no timer until then.
      assert.equal(r.armed(), 1, 'timers armed while it waits');
      assert.equal(r.writes.length, 0, 'nothing written while it waits');
      await r.run;
      assert.deepEqual(
        r.writes.map((w) => w.op.kind),
        ['done'],
      );
      assert.ok(logOf(r.writes[0]!.op).includes('resumed'));
      // Told by its machine's timer as it fires, once its event is taken.
      assert.equal(r.woke.length, 1, 'its hold ended at its timer');
      for (const at of r.woke) {
        assert.ok(at >= due - 5, `woke ${due - at} ms before its timer`);
        assert.ok(at <= r.writes[0]!.at, 'it took its slot at its timer, before its ending');
      }
    });
});

/** Waits in `waiting` for 1 s, or leaves it on GO: which way it went is its output (a second: the
 * first run parks before it is due, on a loaded host too). */
const turnMachine = setup({}).createMachine({
  initial: 'waiting',
  states: {
    waiting: { after: { 1000: 'timedOut' }, on: { GO: 'went' } },
    timedOut: { type: 'final', output: 'timed out' },
    went: { type: 'final', output: 'went' },
  },
  output: ({ event }) => (event as { output?: unknown }).output,
});

describe("a held run's due timer that waits its turn (THE GATE)", () => {
  for (const compile of [false, true]) {
    it(`takes its transition, and its slot, only when its turn comes (${runtime(compile)})`, async () => {
      let turn: DeferredWake | undefined;
      const r = await heldRun(turnMachine, compile, 5_000, { gate: (w) => ((turn = w), false) });
      await sleep(1300);
      assert.ok(turn, 'its timer fired and asked for its turn');
      assert.equal(r.writes.length, 0, 'nothing taken while it waits its turn');
      assert.equal(r.woke.length, 0, 'no slot taken while it waits its turn');
      const turnAt = Date.now();
      turn.wakeNow();
      await r.run;
      assert.deepEqual(
        r.writes.map((w) => w.op.kind),
        ['done'],
      );
      assert.equal((r.writes[0]!.op as { state?: string }).state, '"timedOut"');
      assert.equal(r.woke.length, 1, 'its hold ended once, at its turn');
      assert.ok(r.woke[0]! >= turnAt);
    });

    it(`is dropped when its state is left while it waits (${runtime(compile)})`, async () => {
      let turn: DeferredWake | undefined;
      const r = await heldRun(turnMachine, compile, 5_000, {
        gate: (w) => ((turn = w), false),
        inbox: [JSON.stringify({ type: 'GO' })],
      });
      await sleep(1300);
      assert.ok(turn, 'its timer fired and asked for its turn');
      r.job.pipeline!.readInbox(); // GO, sent while the timer waits its turn
      await r.run;
      turn.wakeNow(); // its turn comes after the machine moved on
      await sleep(50);
      assert.deepEqual(
        r.writes.map((w) => w.op.kind),
        ['done'],
      );
      assert.equal((r.writes[0]!.op as { state?: string }).state, '"went"');
    });
  }
});
