// What an aborted job's run sees of its abort (ActiveJob.abort, abortError): one error per
// abort, the same wherever it is read (the signal's reason, a race's rejection, a start waiting
// for its lease), made when first read; a stray error's abort carries that error itself.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AbortedError } from '../../src/runtime/ActiveJob.js';
import { claimedJob, runOn } from '../support/bareJob.js';

test('an abort is one AbortedError of its reason and words, wherever it is read', async () => {
  const { job } = runOn(claimedJob());
  assert.equal(job.abortError, null, 'none before the abort');
  const racing = job.race(new Promise(() => {}));
  const signal = job.signal;
  job.abort('timeout', 'attempt timed out after 5 ms');
  job.abort('cancel', 'job was cancelled'); // the first abort counts
  const err = (job as { abortError: Error | null }).abortError; // (not narrowed to null above)
  assert.ok(err instanceof AbortedError);
  assert.equal(err.reason, 'timeout');
  assert.equal(err.message, 'attempt timed out after 5 ms');
  assert.equal(err.code, 'ABORTED');
  assert.equal(job.abortError, err, 'the same error on every read');
  assert.equal(signal.reason, err, "the signal's reason");
  await assert.rejects(racing, (e) => e === err);
  await assert.rejects(job.race(Promise.resolve(1)), (e) => e === err, 'a race after the abort');
  await assert.rejects(job.leaseReady()!, (e) => e === err, 'a start after the abort');
  assert.equal(job.signal.reason, err);
});

test("a stray error's abort carries that error, to a signal made after it too", () => {
  const { job } = runOn(claimedJob());
  const stray = new TypeError('boom');
  job.abort('failed', stray.message, stray);
  assert.equal(job.abortReason, 'failed');
  assert.equal(job.abortError, stray);
  assert.equal(job.signal.reason, stray);
});
