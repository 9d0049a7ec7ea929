// Audit entries with no move of the machine ride on the next write (LOG_ONLY_MS, held by
// checkpointWriter.ts): a resumed job whose timer is due at once writes its ending alone, not
// first a checkpoint of the snapshot it was claimed with (a write per resume, of every parked
// pipeline); and when no write comes, the entries are written within LOG_ONLY_MS. Run on a bare ActiveJob (no store),
// as test/pipeline/runtimeCore.test.ts does; on XState actors (`compile: false`), and the first
// case on the compiled runner too (which runs a state that only waits on an `after`).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { definePipeline, step } from '../../src/index.js';
import type { CommitOp } from '../../src/store/types.js';
import { claimedJob, hostAt, runOn } from '../support/bareJob.js';
import { LOG_ONLY_MS } from '../../src/pipeline/checkpointWriter.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const snapshotOf = (op: CommitOp | undefined) => (op as { snapshot: string }).snapshot;
const logOf = (op: CommitOp) =>
  ((op as { log?: string[] }).log ?? []).map((e) => (JSON.parse(e) as { type: string }).type);

describe('log-only checkpoints wait for the next write', () => {
  for (const compile of [false, true])
    it(`a resumed job whose timer is due writes its ending alone, its 'resumed' entry with it (${compile ? 'compiled' : 'XState actors'})`, async () => {
      const def = definePipeline({
        name: 'm',
        compile,
        machine: setup({}).createMachine({
          initial: 'waiting',
          states: { waiting: { after: { 5_000: 'end' } }, end: { type: 'final' } },
        }),
      });
      assert.equal(Boolean(def.compiled), compile);
      const first = runOn(claimedJob({ version: def.version, attempt: 1, snapshot: undefined }));
      await def.runAttempt(first.job, {}, 60_000, hostAt());
      assert.equal(first.writes.at(-1)!.kind, 'park');
      // Claimed again when its timer is due (the store's clock 6 s on).
      const second = runOn(
        claimedJob({ version: def.version, attempt: 2, snapshot: snapshotOf(first.writes.at(-1)) }),
      );
      await def.runAttempt(second.job, {}, 60_000, hostAt(6_000));
      assert.deepEqual(
        second.writes.map((w) => w.kind),
        ['done'],
        'no checkpoint of the snapshot it was claimed with',
      );
      assert.ok(logOf(second.writes[0]!).includes('resumed'), `log: ${logOf(second.writes[0]!).join(', ')}`);
    });

  it('a resumed job whose timer is due persists its machine once, for its ending (no checkpoint is computed first)', async () => {
    const machine = setup({}).createMachine({
      initial: 'waiting',
      states: { waiting: { after: { 5_000: 'end' } }, end: { type: 'final' } },
    });
    const def = definePipeline({ name: 'm', machine, compile: false });
    const first = runOn(claimedJob({ version: def.version, attempt: 1, snapshot: undefined }));
    await def.runAttempt(first.job, {}, 60_000, hostAt());
    // Counts what each checkpoint (and the ending) costs most: the machine's persisted snapshot.
    let persisted = 0;
    const persist = machine.getPersistedSnapshot.bind(machine);
    machine.getPersistedSnapshot = (...args) => {
      persisted++;
      return persist(...args);
    };
    const second = runOn(
      claimedJob({ version: def.version, attempt: 2, snapshot: snapshotOf(first.writes.at(-1)) }),
    );
    await def.runAttempt(second.job, {}, 60_000, hostAt(6_000));
    assert.deepEqual(
      second.writes.map((w) => w.kind),
      ['done'],
    );
    assert.equal(persisted, 1, 'the ending alone persists the machine');
  });

  // Only a restored timer due at once holds the first checkpoint back: any other start takes it
  // at the immediate queued as the machine first moves, ahead of its step's own. The sequences
  // are main's at 97ee128 (XState's promise actors settle later than a compiled step does).
  const expected = {
    compiled: ['checkpoint "one"', 'checkpoint "two"', 'checkpoint "three"', 'done'],
    'XState actors': ['checkpoint "two"', 'done'],
  };
  for (const compile of [true, false]) {
    const runtime = compile ? 'compiled' : 'XState actors';
    it(`a fresh run whose steps yield writes the checkpoints it did before (${runtime})`, async () => {
      const yieldStep = step(() => new Promise<number>((r) => setImmediate(() => r(1))));
      const def = definePipeline({
        name: 'm',
        compile,
        machine: setup({ actors: { yieldStep } }).createMachine({
          initial: 'one',
          states: {
            one: { invoke: { id: 's1', src: 'yieldStep', onDone: 'two' } },
            two: { invoke: { id: 's2', src: 'yieldStep', onDone: 'three' } },
            three: { invoke: { id: 's3', src: 'yieldStep', onDone: 'end' } },
            end: { type: 'final' },
          },
        }),
      });
      const run = runOn(claimedJob({ version: def.version, attempt: 1, snapshot: undefined }));
      await def.runAttempt(run.job, {}, 60_000, hostAt());
      assert.deepEqual(
        run.writes.map((w) => (w.kind === 'checkpoint' ? `${w.kind} ${w.state}` : w.kind)),
        expected[runtime],
      );
    });
  }

  it("a resumed job that does not move writes its 'resumed' entry within LOG_ONLY_MS", async () => {
    let release!: () => void;
    const hold = step(() => new Promise<void>((r) => (release = r)));
    const def = definePipeline({
      name: 'm',
      compile: false, // a compiled run writes its first checkpoint always (runCompiledPipeline.ts)
      machine: setup({ actors: { hold } }).createMachine({
        initial: 'waiting',
        states: {
          waiting: { after: { 5_000: 'working' } },
          working: { invoke: { id: 'h', src: 'hold', onDone: 'end' } },
          end: { type: 'final' },
        },
      }),
    });
    // Attempt 1 parks in `waiting`; attempt 2 moves on to `working` and is cut there (as by a
    // crash: its checkpoint of `working` is what attempt 3 is claimed with).
    const first = runOn(claimedJob({ version: def.version, attempt: 1, snapshot: undefined }));
    await def.runAttempt(first.job, {}, 60_000, hostAt());
    const second = runOn(
      claimedJob({ version: def.version, attempt: 2, snapshot: snapshotOf(first.writes.at(-1)) }),
    );
    const attempt2 = def.runAttempt(second.job, {}, 60_000, hostAt(6_000));
    while (!second.writes.some((w) => w.kind === 'checkpoint')) await sleep(5);
    const inWorking = second.writes.find((w) => w.kind === 'checkpoint');
    assert.match(snapshotOf(inWorking), /"value":"working"/);
    second.job.abort('shutdown', 'test');
    release();
    await attempt2;
    // Attempt 3 restores into `working`: the step runs again and holds; nothing moves.
    const third = runOn(claimedJob({ version: def.version, attempt: 3, snapshot: snapshotOf(inWorking) }));
    const attempt3 = def.runAttempt(third.job, {}, 60_000, hostAt(6_000));
    await sleep(10);
    assert.equal(third.writes.length, 0, 'held back at first');
    await sleep(LOG_ONLY_MS + 150);
    assert.deepEqual(
      third.writes.map((w) => w.kind),
      ['checkpoint'],
    );
    assert.ok(logOf(third.writes[0]!).includes('resumed'));
    release();
    await attempt3;
    assert.equal(third.writes.at(-1)!.kind, 'done');
  });
});
