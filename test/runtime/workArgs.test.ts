import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { ActiveJob, type JobHost } from '../../src/runtime/ActiveJob.js';
import { workArgs } from '../../src/runtime/workArgs.js';
import type { ClaimedJob, CommitOp } from '../../src/store/types.js';

function claimed(id: string, attempt = 2): ClaimedJob {
  return {
    id,
    token: '7',
    machine: 'm',
    version: 1,
    input: '{}',
    snapshot: undefined,
    attempt,
    maxAttempts: 3,
    status: 'queued',
    leaseRequeues: 0,
    retryLaters: 0,
    parentId: undefined,
    parentQueue: undefined,
    options: undefined,
    inbox: 0,
    hasInbox: false,
  };
}

function job(id: string, writes: CommitOp[] = []): ActiveJob {
  const host: JobHost = { queue: 'q', write: async (op) => (writes.push(op), true) };
  return new ActiveJob(claimed(id), host);
}

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
