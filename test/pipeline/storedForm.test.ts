// The stored form of a pipeline's machine snapshot and timers (store/storedMachine.ts): XState's
// default fields left out by a compact form are put back on reading, so XState restores, and
// every reader sees, exactly what a full form gives; records written in full (by data format 1:
// main at 97ee128 and its successors) read as they are, and are written compact when they park
// again (format 2; storedParts.ts).
// Run on a bare ActiveJob (no store), as logOnlyCheckpoint.test.ts does.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createActor, fromPromise, raise, setup } from 'xstate';
import { definePipeline } from '../../src/index.js';
import type { CommitOp } from '../../src/store/types.js';
import { claimedJob, hostAt, runOn } from '../support/bareJob.js';
import { compactMachine, compactTimers, fullMachine, fullTimers } from '../../src/store/storedMachine.js';
import { decodeJob } from '../../src/store/decodeJob.js';

const snapshotOf = (op: CommitOp | undefined) => (op as { snapshot: string }).snapshot;

const parked = () =>
  definePipeline({
    name: 'm',
    machine: setup({}).createMachine({
      initial: 'waiting',
      context: { n: 1 },
      states: { waiting: { after: { 5_000: 'end' } }, end: { type: 'final' } },
    }),
  });

/** XState's persisted snapshots of a machine with a remembered history state, an invoked
 * child machine and a running promise, and of a finished one, as JSON. */
function persistedSamples(): unknown[] {
  const child = setup({}).createMachine({ initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } });
  const m = setup({
    actors: { child, wait: fromPromise(() => new Promise(() => {})) },
  }).createMachine({
    id: 'flow',
    initial: 'work',
    context: { n: 1 },
    states: {
      work: {
        initial: 'one',
        states: { one: { on: { NEXT: 'two' } }, two: {}, hist: { type: 'history' } },
        on: { AWAY: 'away' },
      },
      away: {
        invoke: [
          { id: 'c', src: 'child' },
          { id: 'p', src: 'wait', input: { x: 1 } },
        ],
        on: { BACK: 'work.hist', END: 'end' },
      },
      end: { type: 'final' },
    },
    output: ({ context }) => context.n,
  });
  const actor = createActor(m).start();
  const out: unknown[] = [actor.getPersistedSnapshot()];
  actor.send({ type: 'NEXT' });
  actor.send({ type: 'AWAY' });
  out.push(actor.getPersistedSnapshot());
  actor.send({ type: 'END' });
  out.push(actor.getPersistedSnapshot());
  return out.map((s) => JSON.parse(JSON.stringify(s)) as unknown);
}

describe('the stored form of a pipeline snapshot', () => {
  it('puts back what it leaves out, in the key order XState persists', () => {
    for (const full of persistedSamples()) {
      const compact = compactMachine(full);
      assert.equal(JSON.stringify(fullMachine(compact)), JSON.stringify(full));
    }
    const [first] = persistedSamples();
    assert.deepEqual(Object.keys(compactMachine(first) as object), ['status', 'value', 'context']);
    // A history state remembered and children running are kept.
    const [, away] = persistedSamples() as { historyValue: object; children: object }[];
    assert.deepEqual(compactMachine(away), away);
  });

  it("leaves out a timer's empty source and target, and an event that is {type: its id}", () => {
    const timers = [
      {
        id: 'xstate.after.5000.m.a',
        source: '',
        target: '',
        event: { type: 'xstate.after.5000.m.a' },
        dueAt: 9,
      },
      { id: 'k3j', source: 'child', target: '', event: { type: 'PING', n: 1 }, dueAt: 10 },
      { id: 'x', source: '', target: 'c/d', event: { type: 'y' }, dueAt: 11 },
    ];
    const compact = compactTimers(timers);
    assert.deepEqual(compact, [
      { id: 'xstate.after.5000.m.a', dueAt: 9 },
      { id: 'k3j', source: 'child', event: { type: 'PING', n: 1 }, dueAt: 10 },
      { id: 'x', target: 'c/d', event: { type: 'y' }, dueAt: 11 },
    ]);
    assert.equal(JSON.stringify(fullTimers(compact)), JSON.stringify(timers));
  });

  it('a compact record (what format 2 writes) restores, parks and ends as a full one', async () => {
    const def = parked();
    const dueAt = Date.now() + 5_000;
    const id = 'xstate.after.5000.(machine).waiting';
    const stored = `{"w":{"status":"active","value":"waiting","context":{"n":1}},"t":[{"id":"${id}","dueAt":${dueAt}}]}`;
    const early = runOn(claimedJob({ version: def.version, attempt: 2, snapshot: stored }));
    await def.runAttempt(early.job, {}, 60_000, hostAt());
    assert.equal(early.writes.at(-1)!.kind, 'park');
    // Parked again as it was stored: compact, its timer as it was.
    assert.equal(snapshotOf(early.writes.at(-1)), stored);
    const due = runOn(claimedJob({ version: def.version, attempt: 3, snapshot: stored }));
    await def.runAttempt(due.job, {}, 60_000, hostAt(6_000));
    assert.deepEqual(
      due.writes.map((w) => w.kind),
      ['done'],
    );
  });

  it('a record written in full (format 1) restores, parks again compact and ends as before', async () => {
    const def = parked();
    const dueAt = Date.now() + 5_000;
    const id = 'xstate.after.5000.(machine).waiting';
    // As main wrote it: every field XState persists, and the timer's in full.
    const stored =
      `{"w":{"status":"active","value":"waiting","historyValue":{},"context":{"n":1},"children":{}},` +
      `"t":[{"id":"${id}","source":"","target":"","event":{"type":"${id}"},"dueAt":${dueAt}}]}`;
    const early = runOn(claimedJob({ version: def.version, attempt: 2, snapshot: stored }));
    await def.runAttempt(early.job, {}, 60_000, hostAt());
    // Claimed before its timer is due: it parks again, its timer kept, written compact (format 2).
    assert.equal(early.writes.at(-1)!.kind, 'park');
    assert.equal(
      snapshotOf(early.writes.at(-1)),
      `{"w":{"status":"active","value":"waiting","context":{"n":1}},"t":[{"id":"${id}","dueAt":${dueAt}}]}`,
    );
    const due = runOn(claimedJob({ version: def.version, attempt: 3, snapshot: stored }));
    await def.runAttempt(due.job, {}, 60_000, hostAt(6_000));
    // Its ending is what this case proves (whether a checkpoint came first is timing's:
    // dueTimerAtOnce.test.ts proves the ending written alone; on a loaded CI host one came first).
    assert.deepEqual(
      due.writes.filter((w) => w.kind !== 'checkpoint').map((w) => w.kind),
      ['done'],
    );
  });

  it('a reader of the record (decodeJob: API, dashboard, CLI) sees it in full', () => {
    const id = 'xstate.after.5000.(machine).waiting';
    const sn = `{"w":{"status":"active","value":"waiting","context":{"n":1}},"t":[{"id":"${id}","dueAt":5}]}`;
    const record = decodeJob('job-1', 'q', ['m', '1', 'working', '"waiting"', sn])!;
    assert.equal(
      JSON.stringify(record.snapshot),
      JSON.stringify({
        l: (record.snapshot as { l: unknown }).l,
        w: { status: 'active', value: 'waiting', historyValue: {}, context: { n: 1 }, children: {} },
        t: [{ id, source: '', target: '', event: { type: id }, dueAt: 5 }],
      }),
    );
  });

  it('a delayed raise (its own id and event) restores from what it stores', async () => {
    const def = definePipeline({
      name: 'm',
      machine: setup({}).createMachine({
        initial: 'waiting',
        states: {
          waiting: {
            entry: raise({ type: 'GO', n: 2 }, { delay: 5_000, id: 'later' }),
            on: { GO: 'end' },
          },
          end: { type: 'final' },
        },
      }),
    });
    const first = runOn(claimedJob({ version: def.version, attempt: 1, snapshot: undefined }));
    await def.runAttempt(first.job, {}, 60_000, hostAt());
    assert.match(
      snapshotOf(first.writes.at(-1)),
      /"t":\[\{"id":"later","event":\{"type":"GO","n":2\},"dueAt":\d+\}\]/,
    );
    const second = runOn(
      claimedJob({ version: def.version, attempt: 2, snapshot: snapshotOf(first.writes.at(-1)) }),
    );
    await def.runAttempt(second.job, {}, 60_000, hostAt(6_000));
    assert.equal(second.writes.at(-1)!.kind, 'done');
  });
});
