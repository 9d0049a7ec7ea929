import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import type { ActiveJob } from '../../src/runtime/ActiveJob.js';
import { workArgs } from '../../src/runtime/workArgs.js';
import type { CommitOp } from '../../src/store/types.js';
import { claimedJob, runOn } from '../support/bareJob.js';

/** A claimed job (its second attempt) on a bare ActiveJob, its writes kept in `writes`. */
const job = (id: string, writes: CommitOp[] = []): ActiveJob =>
  runOn(claimedJob({ id, token: '7', input: '{}', attempt: 2, status: 'queued' }), writes).job;

describe('work args', () => {
  it('are own enumerable properties, so a spread copy keeps them all, signal and progress too', () => {
    const j = job('a');
    const args = workArgs(j, { n: 1 }, 'q', 'working', 'L');
    assert.deepEqual(Object.keys(args).sort(), [
      'attempt',
      'idempotencyKey',
      'input',
      'jobId',
      'loaded',
      'progress',
      'queue',
      'signal',
    ]);
    const copy = { ...args };
    assert.deepEqual(copy.input, { n: 1 });
    assert.equal(copy.attempt, 2);
    assert.equal(copy.jobId, 'a');
    assert.equal(copy.queue, 'q');
    assert.equal(copy.idempotencyKey, 'a:working:2');
    assert.equal(copy.loaded, 'L');
    assert.ok(copy.signal instanceof AbortSignal);
    assert.equal(copy.signal, j.signal);
    assert.equal(typeof copy.progress, 'function');
  });

  it("give each job its own signal, which fires when that job is aborted and not another's", () => {
    const a = job('a');
    const b = job('b');
    const argsA = workArgs(a, undefined, 'q', 'loading');
    const argsB = workArgs(b, undefined, 'q', 'working');
    assert.equal(argsA.idempotencyKey, 'a:loading:2');
    const { signal } = argsA;
    assert.equal(signal.aborted, false);
    a.abort('cancel', 'cancelled');
    assert.equal(signal.aborted, true);
    assert.equal((signal.reason as Error).message, 'cancelled');
    assert.equal(argsB.signal.aborted, false);
  });

  it('report progress through their own job', async () => {
    const writes: CommitOp[] = [];
    const j = job('a', writes);
    workArgs(j, undefined, 'q', 'working').progress({ pct: 50 });
    await new Promise((r) => setImmediate(() => setImmediate(r)));
    assert.equal(writes.length, 1);
    assert.equal(writes[0]!.id, 'a');
    assert.equal((writes[0] as { progress?: string }).progress, '{"pct":50}');
  });

  it('keep the job out of what a spread, a log line or JSON shows', () => {
    const args = workArgs(job('a'), 1, 'q', 'working');
    assert.equal(Object.getOwnPropertySymbols({ ...args }).length, 0);
    assert.doesNotMatch(inspect(args), /ActiveJob|token/);
    assert.doesNotMatch(JSON.stringify({ ...args, signal: undefined }), /token/);
  });
});
