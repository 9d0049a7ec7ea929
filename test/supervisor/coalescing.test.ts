// COALESCING (src/supervisor/pendingWrites.ts): a job's write queued while its checkpoint still
// waits in line, unsent, takes that checkpoint in when the two would leave the same record; the
// job's audit log keeps every entry of both, and the two callers get the one op's answer.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { setup } from 'xstate';
import { definePipeline, step } from '../../src/index.js';
import type { CommitOp, CommitResult, ClaimRequest } from '../../src/store/types.js';
import { CommitWrites } from '../../src/supervisor/CommitWrites.js';
import { coalesced } from '../../src/supervisor/pendingWrites.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

type Checkpoint = Extract<CommitOp, { kind: 'checkpoint' }>;
type Done = Extract<CommitOp, { kind: 'done' }>;

const ck = (state: string, more: Partial<Checkpoint> = {}): Checkpoint => ({
  kind: 'checkpoint',
  id: 'j',
  token: 't',
  status: 'working',
  snapshot: `{"w":${state}}`,
  state: `"${state}"`,
  inboxConsumed: 0,
  log: [`{"type":"state","state":"${state}"}`],
  ...more,
});
const done = (more: Partial<Done> = {}): Done => ({
  kind: 'done',
  id: 'j',
  token: 't',
  output: '1',
  snapshot: '{"w":"end"}',
  state: '"end"',
  log: ['{"type":"state","state":"end"}', '{"type":"done"}'],
  ...more,
});

describe('coalesced: what a queued write makes of the checkpoint before it', () => {
  it('a checkpoint: the later fields, the earlier ones it does not set, both logs in order', () => {
    const merged = coalesced(ck('a', { progress: '5' }), ck('b', { inboxConsumed: 2 }), false);
    assert.deepEqual(merged, {
      ...ck('b', { inboxConsumed: 2, progress: '5' }),
      log: ['{"type":"state","state":"a"}', '{"type":"state","state":"b"}'],
    });
    // A progress report (no snapshot, no state) keeps the snapshot of the checkpoint before it.
    const report: Checkpoint = {
      kind: 'checkpoint',
      id: 'j',
      token: 't',
      status: 'working',
      progress: '7',
      log: ['p'],
    };
    const kept = coalesced(ck('a'), report, false) as Checkpoint;
    assert.equal(kept.snapshot, '{"w":a}');
    assert.equal(kept.state, '"a"');
    assert.equal(kept.progress, '7');
    assert.equal(kept.inboxConsumed, 0);
  });

  it('a done with a snapshot, when the run may end so: the done, both logs in order', () => {
    assert.deepEqual(coalesced(ck('c'), done(), true), {
      ...done(),
      log: ['{"type":"state","state":"c"}', '{"type":"state","state":"end"}', '{"type":"done"}'],
    });
  });

  it('nothing when the two would not leave the same record', () => {
    assert.equal(
      coalesced(ck('c'), done(), false),
      undefined,
      'the run may not end so (lease requeues, loading)',
    );
    assert.equal(coalesced(ck('c', { progress: '9' }), done(), true), undefined, 'a done keeps no progress');
    assert.equal(coalesced(ck('c', { status: 'loading' }), done(), true), undefined, 'a status move');
    assert.equal(coalesced(ck('c'), done({ snapshot: '' }), true), undefined, 'a done without a snapshot');
    assert.equal(coalesced(ck('c'), done({ state: undefined }), true), undefined, 'a done without a state');
    assert.equal(coalesced(ck('a', { status: 'loading' }), ck('b'), true), undefined, 'another status');
    assert.equal(coalesced(ck('a'), ck('b', { token: 'u' }), true), undefined, 'another lease');
    assert.equal(coalesced(ck('a'), ck('b', { version: 2 }), true), undefined, 'another version');
    assert.equal(coalesced(done(), ck('b'), true), undefined, 'only a checkpoint is taken in');
    const retry: CommitOp = {
      kind: 'retry',
      id: 'j',
      token: 't',
      error: '{}',
      delayMs: 0,
      attempt: 2,
      log: [],
    };
    assert.equal(coalesced(ck('a'), retry, true), undefined, 'a retry resumes from the checkpoint');
  });
});

describe('CommitWrites: coalescing in line', () => {
  const log = pino({ level: 'silent' });
  const writes = () => new CommitWrites({ log, onLeaseLost: () => {}, onBackoff: () => {} });

  it("sends one op for a job's checkpoints and done queued one after the other; each caller gets its answer", async () => {
    const w = writes();
    const answers = [w.queue(ck('a'), true), w.queue(ck('b'), true), w.queue(done(), true)];
    // The done is the job's last write in line now: nothing is taken into it.
    answers.push(w.queue({ ...ck('x'), id: 'other' }, true), w.queue({ ...ck('y'), id: 'j' }, true));
    const { batch } = w.take();
    assert.deepEqual(
      batch.map((p) => [p.op.id, p.op.kind]),
      [
        ['j', 'done'],
        ['other', 'checkpoint'],
        ['j', 'checkpoint'],
      ],
    );
    assert.equal(batch[0]!.op.log.length, 4, 'the states a and b, then the done');
    w.sent(batch);
    w.answered(batch, [false, true, true]);
    assert.deepEqual(await Promise.all(answers), [false, false, false, true, true]);
  });

  it("takes in the job's checkpoint still in line behind other jobs' writes, where that checkpoint was", async () => {
    const w = writes();
    const answers = [
      w.queue(ck('a'), true),
      w.queue({ ...ck('x'), id: 'other' }, true),
      w.queue(ck('b'), true),
      w.queue({ ...ck('y'), id: 'third' }, true),
      w.queue(done(), true),
      w.queue({ ...ck('z'), id: 'other' }, true),
    ];
    const { batch } = w.take();
    assert.deepEqual(
      batch.map((p) => [p.op.id, p.op.kind, p.op.log.length]),
      [
        ['j', 'done', 4],
        ['other', 'checkpoint', 2],
        ['third', 'checkpoint', 1],
      ],
    );
    assert.deepEqual(batch[0]!.op, {
      ...done(),
      log: [
        '{"type":"state","state":"a"}',
        '{"type":"state","state":"b"}',
        '{"type":"state","state":"end"}',
        '{"type":"done"}',
      ],
    });
    assert.equal((batch[1]!.op as Checkpoint).state, '"z"', "the other job's later state");
    w.sent(batch);
    w.answered(batch, [true, false, true]);
    assert.deepEqual(await Promise.all(answers), [true, false, true, true, true, false]);
    // A write after the take starts a new line: the job's earlier writes were taken.
    void w.queue(ck('c'), true);
    assert.equal(w.take().batch[0]!.op.log.length, 1);
  });

  it('never takes in a write that was taken for a commit, nor one put back after a failed commit', () => {
    const w = writes();
    void w.queue(ck('a'), true);
    const first = w.take().batch;
    w.sent(first);
    void w.queue(ck('b'), true);
    assert.equal(w.take().batch[0]!.op.log.length, 1, 'a was taken already');
    w.failed(first, Object.assign(new Error('READONLY'), { name: 'ReplyError' }));
    void w.queue(ck('c'), true);
    w.retryAt = 0;
    const again = w.take().batch;
    assert.deepEqual(
      again.map((p) => (p.op as Checkpoint).state),
      ['"a"', '"c"'],
    );
  });
});

const threeSteps = setup({
  actors: {
    yields: step(() => new Promise<number>((resolve) => setImmediate(() => resolve(1)))),
  },
}).createMachine({
  initial: 'a',
  states: {
    a: { invoke: { id: 'a', src: 'yields', onDone: 'b' } },
    b: { invoke: { id: 'b', src: 'yields', onDone: 'c' } },
    c: { invoke: { id: 'c', src: 'yields', onDone: 'end' } },
    end: { type: 'final' },
  },
  output: () => 'ok',
});

describeOnEachStore('coalesced checkpoints', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  for (const compile of [true, false]) {
    it(`a pipeline whose steps yield writes fewer ops and the same log (${compile ? 'compiled' : 'XState runtime'})`, async () => {
      h = world();
      const store = h.store;
      let ops = 0;
      const commit = store.commit.bind(store);
      store.commit = (queue: string, batch: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> => {
        ops += batch.length;
        return commit(queue, batch, claim);
      };
      const jobs = [definePipeline({ name: 'yields', machine: threeSteps, compile })];
      const client = h.client({ jobs });
      const ids = await client.enqueueMany(
        Array.from({ length: 20 }, () => ({ machine: 'yields', input: null })),
      );
      await h.started({ jobs, concurrency: 20 });
      for (const id of ids) {
        const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
        assert.equal(rec.status, 'done');
        assert.equal(rec.output, 'ok');
        const states = (await client.events(id)).filter((e) => e.type === 'state').map((e) => e.state);
        assert.deepEqual(states, ['a', 'b', 'c', 'end'], 'every state a run passed through, in order');
        assert.equal((await client.events(id)).at(-1)?.type, 'done');
      }
      // 3 checkpoints and a done each, were each sent: the last checkpoint travels with the done.
      assert.ok(ops < ids.length * 4, `${ops} ops for ${ids.length} jobs`);
    });
  }
});
