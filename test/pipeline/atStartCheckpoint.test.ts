// AT START (src/pipeline/pipelineRun.ts): a fresh run's first checkpoint, taken while its machine
// is where its start put it (the initial state, its first step in flight, nothing settled), stores
// only what a fresh claim makes again, so it is held for the next write (LOG_ONLY_MS at most):
// a first step that yields has its state's checkpoint go out with the next state's, one op for
// the two (workload 6b), and a checkpoint that holds a step's result is never held. Run on a bare
// ActiveJob (no store), claimed `working` as a pipeline's fresh claim is; on both runtimes (the
// compiled runner and XState's, each its own MachineDriver.atStart), and with a progress report:
// the log must read the same.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { definePipeline, step } from '../../src/index.js';
import type { CommitOp } from '../../src/store/types.js';
import { claimedJob, hostAt, runOn } from '../support/bareJob.js';
import { LOG_ONLY_MS } from '../../src/pipeline/checkpointWriter.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const snapshotOf = (op: CommitOp | undefined) => (op as { snapshot: string }).snapshot;
const logOf = (op: CommitOp) => (op as { log?: string[] }).log ?? [];
const kinds = (writes: CommitOp[]) =>
  writes.map((w) => (w.kind === 'checkpoint' ? `${w.kind} ${w.state ?? '-'}` : w.kind));
const runtime = (compile: boolean) => (compile ? 'compiled' : 'XState runtime');
/** A fresh claim of a pipeline: `working` (no load phase). */
const fresh = (version: number) =>
  claimedJob({ version, attempt: 1, snapshot: undefined, status: 'working' });

function threeSteps(compile: boolean, work: () => Promise<number>) {
  return definePipeline({
    name: 'm',
    compile,
    machine: setup({ actors: { s: step(work) } }).createMachine({
      initial: 'one',
      states: {
        one: { invoke: { id: 's1', src: 's', onDone: 'two' } },
        two: { invoke: { id: 's2', src: 's', onDone: 'three' } },
        three: { invoke: { id: 's3', src: 's', onDone: 'end' } },
        end: { type: 'final' },
      },
    }),
  });
}

describe('a fresh run holds its first checkpoint while nothing has moved (AT START)', () => {
  for (const compile of [true, false])
    it(`steps that yield: the first state goes out with the second, which holds step 1 result (${runtime(compile)})`, async () => {
      const def = threeSteps(compile, () => new Promise<number>((r) => setImmediate(() => r(1))));
      assert.equal(Boolean(def.compiled), compile);
      const run = runOn(fresh(def.version));
      await def.runAttempt(run.job, {}, 60_000, hostAt());
      // XState's promise actors settle a turn later than the compiled runner's steps: its state
      // three and its ending go out in one write.
      assert.deepEqual(
        kinds(run.writes),
        compile ? ['checkpoint "two"', 'checkpoint "three"', 'done'] : ['checkpoint "two"', 'done'],
      );
      const first = run.writes[0]!;
      assert.match(snapshotOf(first), /"value":"two"/, 'the first write stores where step 1 led');
      assert.deepEqual(
        logOf(first).map((e) => JSON.parse(e) as { type: string; state?: string }),
        [{ type: 'started' }, { type: 'state', context: {}, state: 'one' }, { type: 'state', state: 'two' }],
      );
    });

  for (const compile of [true, false])
    it(`a first step that runs on: its state is written within LOG_ONLY_MS, and the step not held by it (${runtime(compile)})`, async () => {
      let release!: (n: number) => void;
      let calls = 0;
      const def = threeSteps(compile, () => {
        calls++;
        return calls === 1 ? new Promise<number>((r) => (release = r)) : Promise.resolve(1);
      });
      const run = runOn(fresh(def.version));
      const attempt = def.runAttempt(run.job, {}, 60_000, hostAt());
      await sleep(10);
      assert.equal(run.writes.length, 0, 'held back at first');
      await sleep(LOG_ONLY_MS + 150);
      assert.deepEqual(kinds(run.writes), ['checkpoint "one"']);
      assert.match(snapshotOf(run.writes[0]), /"value":"one"/);
      assert.deepEqual(
        logOf(run.writes[0]!).map((e) => (JSON.parse(e) as { type: string }).type),
        ['started', 'state'],
      );
      release(1);
      await attempt;
      assert.equal(run.writes.at(-1)!.kind, 'done');
      assert.equal(calls, 3);
    });

  it('a run claimed loading, or resumed, writes its first checkpoint as before', async () => {
    const def = threeSteps(true, () => new Promise<number>((r) => setImmediate(() => r(1))));
    const run = runOn(
      claimedJob({ version: def.version, attempt: 1, snapshot: undefined, status: 'loading' }),
    );
    await def.runAttempt(run.job, {}, 60_000, hostAt());
    assert.deepEqual(kinds(run.writes), [
      'checkpoint "one"',
      'checkpoint "two"',
      'checkpoint "three"',
      'done',
    ]);
    const resumed = runOn(
      claimedJob({ version: def.version, attempt: 2, snapshot: snapshotOf(run.writes[1]) }),
    );
    await def.runAttempt(resumed.job, {}, 60_000, hostAt());
    assert.equal(resumed.writes[0]!.kind, 'checkpoint');
    assert.ok(logOf(resumed.writes[0]!).some((e) => e.includes('"resumed"')));
  });

  for (const compile of [true, false])
    it(`a context that cannot be stored still fails the job at its first checkpoint, before step 1 settles (${runtime(compile)})`, async () => {
      class Money {
        cents = 5;
      }
      const settled: string[] = [];
      const slow = step(
        ({ signal }) =>
          new Promise<number>((r, reject) => {
            const t = setTimeout(() => {
              settled.push('resolved');
              r(1);
            }, 2_000);
            signal.addEventListener('abort', () => {
              clearTimeout(t);
              settled.push('aborted');
              reject(signal.reason as Error);
            });
          }),
      );
      const def = definePipeline({
        name: 'm',
        compile,
        machine: setup({ actors: { slow } }).createMachine({
          initial: 'one',
          context: () => ({ price: new Money() }),
          states: {
            one: { invoke: { id: 's1', src: 'slow', onDone: 'end' } },
            end: { type: 'final' },
          },
        }),
      });
      assert.equal(Boolean(def.compiled), compile);
      const run = runOn(fresh(def.version));
      await def.runAttempt(run.job, {}, 60_000, hostAt());
      const end = run.writes.at(-1)!;
      assert.equal(end.kind, 'fail');
      assert.equal(
        (JSON.parse((end as { error: string }).error) as { code: string }).code,
        'UNSERIALIZABLE_SNAPSHOT',
      );
      assert.deepEqual(settled, ['aborted']);
    });

  for (const compile of [true, false])
    it(`a first state that arms a timer beside its step is written at once (a fresh claim would arm it anew) (${compile ? 'compiled' : 'XState runtime'})`, async () => {
      let release!: (n: number) => void;
      const slow = step(() => new Promise<number>((r) => (release = r)));
      const def = definePipeline({
        name: 'm',
        compile,
        machine: setup({ actors: { slow } }).createMachine({
          initial: 'one',
          states: {
            one: { invoke: { id: 's1', src: 'slow', onDone: 'end' }, after: { 60_000: 'end' } },
            end: { type: 'final' },
          },
        }),
      });
      assert.equal(Boolean(def.compiled), compile);
      const run = runOn(fresh(def.version));
      const attempt = def.runAttempt(run.job, {}, 120_000, hostAt());
      await sleep(30);
      assert.deepEqual(kinds(run.writes), ['checkpoint "one"'], 'not held: its timer is in it');
      release(1);
      await attempt;
      assert.equal(run.writes.at(-1)!.kind, 'done');
    });

  // A progress write takes the held entries ahead of its own (ActiveJob.heldLog): the log reads
  // as it did when the first checkpoint was written at once (main at a8a0136: the same sequences),
  // and as the XState runtime's where its promise actors settle in step (after a yield; reported
  // at once, XState's step 1 settles a turn later, so its state two comes before the progress).
  for (const when of ['at once', 'after a yield'] as const)
    it(`progress reported in the first step (${when}) is logged after its state, on both runtimes`, async () => {
      const logs: string[][] = [];
      for (const compile of [true, false]) {
        const reporting = step(async ({ progress }: { progress: (v: unknown) => void }) => {
          if (when === 'after a yield') await new Promise((r) => setImmediate(r));
          progress({ pct: 50 });
          await new Promise((r) => setImmediate(r));
          return 1;
        });
        const def = definePipeline({
          name: 'm',
          compile,
          machine: setup({ actors: { reporting } }).createMachine({
            initial: 'one',
            states: {
              one: { invoke: { id: 'r', src: 'reporting', onDone: 'two' } },
              two: { invoke: { id: 'r2', src: 'reporting', onDone: 'end' } },
              end: { type: 'final' },
            },
          }),
        });
        assert.equal(Boolean(def.compiled), compile);
        const run = runOn(fresh(def.version));
        await def.runAttempt(run.job, {}, 60_000, hostAt());
        logs.push(
          run.writes.flatMap((w) =>
            logOf(w).map((e) => {
              const p = JSON.parse(e) as { type: string; state?: string };
              return p.state ? `${p.type} ${p.state}` : p.type;
            }),
          ),
        );
      }
      if (when === 'after a yield') assert.deepEqual(logs[0], logs[1], 'compiled and XState logs');
      else assert.deepEqual(logs[1]!.slice(0, 4), ['started', 'state one', 'state two', 'progress']);
      assert.deepEqual(logs[0]!.slice(0, 3), ['started', 'state one', 'progress']);
      assert.deepEqual(logs[0]!.slice(-2), ['state end', 'done']);
    });
});
