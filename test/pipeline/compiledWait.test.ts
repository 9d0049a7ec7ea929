// A wait state run by the compiled runner (runCompiledPipeline.ts) stores, byte for byte, what the
// XState runtime stores: the parked snapshot text (machine, timer, lifecycle) is the same string,
// so the logOnly compare, the record's memory and any reader see no difference; and a resume
// writes the same ops. behaviour.test.ts compares the records parsed (times normalised); this
// compares the raw texts (due and wake times aside: XState's move with the wall clock between its
// timer's scheduling and its capture, TimerDueTimes). Run on a bare
// ActiveJob (no store), as logOnlyCheckpoint.test.ts does.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { definePipeline } from '../../src/index.js';
import type { CommitOp } from '../../src/store/types.js';
import type { AttemptHost } from '../../src/runtime/AttemptHost.js';
import { claimedJob, hostAt, runOn } from '../support/bareJob.js';

const snapshotOf = (op: CommitOp | undefined) => (op as { snapshot: string }).snapshot;

/** A store clock stuck at `at` (the due time the run computes is then exact on both runtimes). */
const hostFixed = (at: number): AttemptHost => ({ ...hostAt(), now: () => at, latest: () => at });

const make = (compile: boolean) =>
  definePipeline({
    name: 'm',
    compile,
    machine: setup({
      types: { context: {} as { n: number; d: Date } },
      delays: { pause: ({ context }) => context.n * 1000 },
    }).createMachine({
      id: 'w',
      initial: 'waiting',
      context: { n: 5, d: new Date(0) },
      states: {
        waiting: {
          after: { pause: { target: 'end', actions: assign({ n: ({ context }) => context.n + 1 }) } },
        },
        end: { type: 'final' },
      },
      output: ({ context }) => context.n,
    }),
  });

/** Due and wake times left out. */
const untimed = (text: string) => text.replace(/(dueAt|wakeAt)(\\?"):\d+/g, '$1$2:T');

/** Every op of a run with its log's times left out (they are the wall clock's). */
const opsOf = (writes: CommitOp[]) =>
  JSON.stringify(writes, (k, v: unknown) =>
    k === 'log' ? (v as string[]).map((e) => e.replace(/"at":\d+,?/, '')) : v,
  );

describe('a wait state on the compiled runner stores what the XState runtime stores', () => {
  it('parks with the same snapshot text, and resumes (due, and not yet due) with the same ops', async () => {
    const at = 1_800_000_000_000;
    const runs = [];
    for (const compile of [true, false]) {
      const def = make(compile);
      assert.equal(Boolean(def.compiled), compile);
      const first = runOn(claimedJob({ version: def.version, attempt: 1, snapshot: undefined }));
      await def.runAttempt(first.job, {}, 60_000, hostFixed(at));
      const parked = first.writes.at(-1)!;
      assert.equal(parked.kind, 'park');
      // Woken before its timer is due (an event's notice, say): it parks again, unchanged.
      const early = runOn(claimedJob({ version: def.version, attempt: 2, snapshot: snapshotOf(parked) }));
      await def.runAttempt(early.job, {}, 60_000, hostFixed(at + 1_000));
      const due = runOn(claimedJob({ version: def.version, attempt: 2, snapshot: snapshotOf(parked) }));
      await def.runAttempt(due.job, {}, 60_000, hostFixed(at + 5_000));
      runs.push({
        raw: snapshotOf(parked),
        parked: untimed(snapshotOf(parked)),
        first: untimed(opsOf(first.writes)),
        early: untimed(opsOf(early.writes)),
        due: untimed(opsOf(due.writes)),
      });
    }
    const [compiled, xstate] = runs;
    assert.match(
      compiled!.raw,
      /"dueAt":1800000005000/,
      'the compiled due time is the store clock + the delay',
    );
    assert.equal(compiled!.parked, xstate!.parked, 'the parked snapshot text');
    assert.equal(compiled!.first, xstate!.first, 'the first run’s ops');
    assert.equal(compiled!.early, xstate!.early, 'the early resume’s ops');
    assert.equal(compiled!.due, xstate!.due, 'the due resume’s ops');
    assert.match(
      compiled!.early,
      /^\[\{"kind":"park"/,
      'the early resume parks again, writing nothing before',
    );
    assert.match(compiled!.due, /^\[\{"kind":"done"/, 'the due resume writes its ending alone');
  });

  it('a timer beyond setTimeout’s range parks the run on both runtimes (Node would fire it at once)', async () => {
    const kinds = [];
    for (const compile of [true, false]) {
      const def = definePipeline({
        name: 'm',
        compile,
        machine: setup({}).createMachine({
          initial: 'w',
          states: { w: { after: { 2_592_000_000: 'end' } }, end: { type: 'final' } },
        }),
      });
      assert.equal(Boolean(def.compiled), compile);
      const run = runOn(claimedJob({ version: def.version }));
      await def.runAttempt(run.job, {}, 60_000, hostAt());
      kinds.push(run.writes.map((w) => w.kind));
    }
    assert.deepEqual(kinds, [
      ['checkpoint', 'park'],
      ['checkpoint', 'park'],
    ]);
  });
});

/**
 * A wait state on two delays (stored in the after keys' order: numbers first) and two events.
 * Each transition notes in `took` which runtime took it (XState's assign gets `self`; a compiled
 * run has none), so a resume that fell back to XState cannot pass for a compiled one.
 */
const makeApproval = (compile: boolean, took: string[]) => {
  const via = (text: (event: { by?: string }) => string) =>
    assign({
      via: ({ event, self }: { event: { by?: string }; self?: unknown }) => {
        took.push(self === undefined ? 'compiled' : 'XState');
        return text(event);
      },
    }) as never;
  return definePipeline({
    name: 'm',
    compile,
    machine: setup({
      types: {
        context: {} as { n: number; via: string; reminders: number },
        events: {} as { type: 'APPROVE'; by: string } | { type: 'REJECT' } | { type: 'REMIND' },
      },
      delays: { remind: ({ context }) => context.n * 1000 },
      guards: { byBoss: ({ event }) => event.type === 'APPROVE' && event.by === 'boss' },
    }).createMachine({
      id: 'w',
      initial: 'waiting',
      context: { n: 5, via: '', reminders: 0 },
      states: {
        waiting: {
          after: {
            remind: { target: 'reminded', actions: via(() => 'remind') },
            9000: { target: 'end', actions: via(() => 'expired') },
          },
          on: {
            APPROVE: {
              guard: 'byBoss',
              target: 'end',
              actions: via((event) => `approved by ${event.by}`),
            },
            REJECT: { target: 'end', actions: via(() => 'rejected') },
            REMIND: { actions: assign({ reminders: ({ context }) => context.reminders + 1 }) },
          },
        },
        reminded: { on: { APPROVE: { target: 'end', actions: via(() => 'late approval') } } },
        end: { type: 'final' },
      },
      output: ({ context }) => context.via,
    }),
  });
};

/** The host of a run at `at` whose inbox holds `events`. */
const hostWithInbox = (at: number, events: object[]): AttemptHost => ({
  ...hostFixed(at),
  readInbox: (_id: string, from: number) => Promise.resolve(events.slice(from).map((e) => JSON.stringify(e))),
});

describe('a wait state on several delays and events stores and takes what the XState runtime does', () => {
  it('parks with every timer, and resumes (events taken, ignored, unhandled; timers due) with the same ops', async () => {
    const at = 1_800_000_000_000;
    /** Resumes of the parked job: [name, store clock, inbox]. */
    const resumes: [string, number, object[]][] = [
      ['approved', at + 1_000, [{ type: 'APPROVE', by: 'boss' }]],
      ['guard false, then unhandled', at + 1_000, [{ type: 'APPROVE', by: 'intern' }, { type: 'PING' }]],
      ['rejected, then one more', at + 1_000, [{ type: 'REJECT' }, { type: 'APPROVE', by: 'boss' }]],
      // Targetless: the state stays, and its timers keep their due times.
      ['reminded', at + 1_000, [{ type: 'REMIND' }]],
      ['remind due', at + 5_000, []],
      // 9000 is stored first: both due at once, it fires first although `remind` was due before.
      ['both due', at + 9_500, []],
      // The inbox read answers at once here: its event comes before the due timers.
      ['event with both due', at + 9_500, [{ type: 'REJECT' }]],
    ];
    const runs = [];
    for (const compile of [true, false]) {
      const took: string[] = [];
      const def = makeApproval(compile, took);
      assert.equal(Boolean(def.compiled), compile);
      const first = runOn(claimedJob({ version: def.version, attempt: 1, snapshot: undefined }));
      await def.runAttempt(first.job, {}, 60_000, hostFixed(at));
      const parked = first.writes.at(-1)!;
      assert.equal(parked.kind, 'park');
      const ops: Record<string, string> = { parked: snapshotOf(parked), first: opsOf(first.writes) };
      for (const [name, now, inbox] of resumes) {
        const claimed = claimedJob({
          version: def.version,
          attempt: 2,
          snapshot: snapshotOf(parked),
          hasInbox: inbox.length > 0,
        });
        const run = runOn(claimed);
        await def.runAttempt(run.job, {}, 60_000, hostWithInbox(now, inbox));
        ops[name] = opsOf(run.writes);
      }
      assert.deepEqual(new Set(took), new Set([compile ? 'compiled' : 'XState']), 'the runtime that resumed');
      runs.push(ops);
    }
    const [compiled, xstate] = runs;
    assert.match(
      compiled!.parked!,
      /"t":\[\{"id":"xstate\.after\.9000\.w\.waiting".*"dueAt":1800000009000\},\{"id":"xstate\.after\.remind\.w\.waiting".*"dueAt":1800000005000\}\]/,
      'both timers, in the after keys’ order, due at the store clock + their delays',
    );
    // Due and wake times aside (XState's may move a ms with the wall clock: see the first test);
    // the compiled ones are checked exactly below.
    for (const key of Object.keys(xstate!))
      assert.equal(untimed(compiled![key]!), untimed(xstate![key]!), key);
    const end = (name: string) =>
      JSON.parse(compiled![name]!).at(-1) as { kind: string; output?: string; state: string; log: string[] };
    assert.equal(end('approved').output, '"approved by boss"');
    assert.equal(end('guard false, then unhandled').kind, 'park');
    assert.match(
      compiled!['guard false, then unhandled']!,
      /guard returned false: 'byBoss'.*no transition for 'PING'/,
    );
    assert.equal(end('rejected, then one more').output, '"rejected"');
    assert.match(compiled!['rejected, then one more']!, /no longer running/);
    assert.equal(end('remind due').state, '"reminded"');
    assert.equal(end('reminded').kind, 'park');
    assert.match(
      compiled!['reminded']!,
      /reminders\\":1.*dueAt\\":1800000009000.*dueAt\\":1800000005000/,
      'the context changed, the due times did not',
    );
    assert.equal(end('both due').output, '"expired"');
    assert.equal(
      end('event with both due').output,
      '"rejected"',
      'an inbox read answered before the due timer fires (at once here): the event leaves the state first',
    );
  });
});
