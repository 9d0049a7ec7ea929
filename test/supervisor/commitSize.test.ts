// A COMMIT'S SIZE (pendingWrites.ts): one commit sends at most MAX_BATCH writes, the rest in the
// next commits, in the order they were queued; a write left in line is not taken into a later one
// (COALESCING takes in only what no take has seen), and a suspect being isolated still goes alone.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { CommitWrites } from '../../src/supervisor/CommitWrites.js';
import { MAX_BATCH, nextBatch, type PendingWrite } from '../../src/supervisor/pendingWrites.js';
import type { CommitOp } from '../../src/store/types.js';

const done = (id: string): CommitOp => ({
  kind: 'done',
  id,
  token: `${id}:t`,
  output: '1',
  snapshot: '',
  log: [],
});
const checkpoint = (id: string, state: string): CommitOp => ({
  kind: 'checkpoint',
  id,
  token: `${id}:t`,
  status: 'working',
  state,
  log: [],
});

function writes(): CommitWrites {
  return new CommitWrites({ log: pino({ level: 'silent' }), onLeaseLost: () => {}, onBackoff: () => {} });
}

describe("a commit's size", () => {
  it('sends at most MAX_BATCH writes a commit, the rest in the next ones, in the order queued', () => {
    const w = writes();
    const n = 2 * MAX_BATCH + 500;
    for (let i = 0; i < n; i++) void w.queue(done(`j${i}`));
    const sizes: number[] = [];
    const ids: string[] = [];
    while (w.waiting > 0) {
      const { batch, isolating } = w.take();
      assert.equal(isolating, false);
      sizes.push(batch.length);
      ids.push(...batch.map((p) => p.op.id));
    }
    assert.deepEqual(sizes, [MAX_BATCH, MAX_BATCH, 500]);
    assert.deepEqual(
      ids,
      Array.from({ length: n }, (_, i) => `j${i}`),
    );
  });

  it('does not take a later write into a checkpoint left in line by a take', () => {
    const w = writes();
    for (let i = 0; i < MAX_BATCH; i++) void w.queue(done(`j${i}`));
    void w.queue(checkpoint('late', '"a"'));
    assert.equal(w.take().batch.length, MAX_BATCH);
    // 'late' stays in line, seen by a take: the next checkpoint goes as an op of its own after it.
    void w.queue(checkpoint('late', '"b"'));
    const { batch } = w.take();
    assert.deepEqual(
      batch.map((p) => (p.op as { state?: string }).state),
      ['"a"', '"b"'],
    );
  });

  it('still sends a suspect alone, and stops a batch at the next suspect', () => {
    const line = (isolate: boolean[]): PendingWrite[] =>
      isolate.map((s, i) => ({
        op: done(`j${i}`),
        seq: i + 1,
        isolate: s,
        resolve: () => {},
        reject: () => {},
      }));
    const first = nextBatch(line([true, false, false]));
    assert.deepEqual([first.batch.length, first.rest.length, first.isolating], [1, 2, true]);
    const cut = nextBatch(line([false, false, true, false]));
    assert.deepEqual([cut.batch.length, cut.rest.length, cut.isolating], [2, 2, false]);
  });
});
