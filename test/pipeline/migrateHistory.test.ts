// A migration that renames states must carry the snapshot's history (`historyValue`: the state
// each history state remembers, by id), not only its `value`: XState drops a remembered id it
// does not know on restore, so a return to the history state would go to the initial child,
// silently. renameStates renames both; an id in `historyValue` the machine lacks fails the job
// at once with UNKNOWN_STATE, as one in `value` does.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { definePipeline, renameStates } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';

/** Work with a deep history; `review` is the state version 2 renames. */
const flow = (review: string, output: string) =>
  setup({}).createMachine({
    id: 'flow',
    initial: 'work',
    states: {
      work: {
        initial: 'draft',
        on: { PAUSE: 'paused' },
        states: {
          draft: { on: { NEXT: review } },
          [review]: {
            initial: 'one',
            states: { one: { on: { NEXT: 'two' } }, two: { on: { FINISH: '#flow.end' } } },
          },
          hist: { type: 'history', history: 'deep' },
        },
      },
      paused: { on: { RESUME: 'work.hist' } },
      end: { type: 'final' },
    },
    output: () => output,
  });

describe('migrations and history states', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  /** A version-1 job paused in work.review.two (remembered by work.hist), its workers stopped. */
  async function pausedInReview(h: Harness) {
    const v1 = definePipeline({ name: 'flow', version: 1, machine: flow('review', 'v1') });
    const sup1 = await h.started({ jobs: [v1] });
    const client = h.client({ jobs: [v1] });
    const id = await client.enqueue('flow', {});
    for (const type of ['NEXT', 'NEXT']) await client.send(id, { type });
    await eventually(
      async () => JSON.stringify((await client.get(id))?.state) === '{"work":{"review":"two"}}',
    );
    await client.send(id, { type: 'PAUSE' });
    await eventually(async () => (await client.get(id))?.state === 'paused');
    const snap = (await client.get(id))!.snapshot as { w: { historyValue: unknown } };
    assert.deepEqual(snap.w.historyValue, { 'flow.work.hist': [{ id: 'flow.work.review.two' }] });
    await sup1.stop();
    return { client, id };
  }

  it('returns to the remembered state, renamed, after a migration with renameStates', async () => {
    const h = new Harness(redis);
    try {
      const { client, id } = await pausedInReview(h);
      const v2 = definePipeline({
        name: 'flow',
        version: 2,
        machine: flow('checking', 'v2'),
        migrate: (snapshot) => renameStates(snapshot, { 'work.review': 'work.checking' }),
      });
      await h.started({ jobs: [v2] });
      await client.send(id, { type: 'RESUME' });
      await eventually(
        async () => JSON.stringify((await client.get(id))?.state) === '{"work":{"checking":"two"}}',
      );
      await client.send(id, { type: 'FINISH' });
      const rec = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(rec.status, 'done');
      assert.equal(rec.output, 'v2');
    } finally {
      await h.close();
    }
  });

  it('fails a job whose history remembers a state the machine lacks with UNKNOWN_STATE, at once', async () => {
    const h = new Harness(redis);
    try {
      const { client, id } = await pausedInReview(h);
      // A migrate that renames the value only: the history still names flow.work.review.two.
      const v2 = definePipeline({
        name: 'flow',
        version: 2,
        machine: flow('checking', 'v2'),
        retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 10 } },
        migrate: (snapshot) => snapshot,
      });
      await h.started({ jobs: [v2] });
      await client.send(id, { type: 'RESUME' });
      const rec = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(rec.status, 'failed', `state ${JSON.stringify(rec.state)}`);
      assert.equal(rec.error?.code, 'UNKNOWN_STATE');
      assert.match(rec.error?.message ?? '', /flow\.work\.review\.two/);
      assert.match(rec.error?.message ?? '', /histor/);
      assert.equal(rec.attempts, 1);
    } finally {
      await h.close();
    }
  });
});
