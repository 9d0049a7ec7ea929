// The audit log as Redis stores it: a plain enqueued, claimed, done job keeps no log fields in its
// hash (the entries are rebuilt from the record's times), and the queue's event stream is capped
// (XADD MAXLEN). What every store must log is in test/supervisor/auditLog.test.ts.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness, gate, untilAborted } from '../support/harness.js';

describe('audit log as Redis stores it', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());
  it('stores no log fields for the plain enqueued, claimed, done sequence and rebuilds the same entries', async () => {
    h = new Harness(redis);
    const started = gate();
    const job = defineJob({
      name: 'plain',
      work: async ({ input, signal }: { input: string; signal: AbortSignal }) => {
        if (input !== 'hang') return input;
        started.open();
        return untilAborted(signal);
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job], heartbeatMs: 5000, leaseMs: 15_000 });
    const id = await client.enqueue('plain', 'ok');
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    const raw = await h.raw.hgetall(h.key(`job:${id}`));
    for (const f of ['ls', 'l1', 'w', 'ua', 'pr'])
      assert.equal(raw[f], undefined, `field ${f} of a plain finished job`);
    const log = await client.events(id);
    assert.deepEqual(log, [
      { at: rec.createdAt, type: 'enqueued' },
      { at: log[1]!.at, type: 'claimed' },
      { at: rec.finishedAt, type: 'done' },
    ]);
    assert.ok(log[1]!.at >= rec.createdAt && log[1]!.at <= rec.finishedAt!);
    assert.equal(rec.updatedAt, rec.finishedAt);
    assert.equal(rec.priority, 'normal');

    // A running job's implicit entries are written out, unchanged, before its next entry.
    const hang = await client.enqueue('plain', 'hang');
    await started.promise;
    const before = await client.events(hang);
    assert.deepEqual(
      before.map((e) => e.type),
      ['enqueued', 'claimed'],
    );
    assert.equal((await client.get(hang))!.updatedAt, before[1]!.at, 'a claim updates the record');
    await client.cancel(hang);
    await client.waitForResult(hang, { timeoutMs: 5000 });
    const after = await client.events(hang);
    assert.deepEqual(after.slice(0, 2), before);
    assert.deepEqual(
      after.map((e) => e.type),
      ['enqueued', 'claimed', 'cancel-requested', 'cancelled'],
    );
    assert.ok((await h.raw.hget(h.key(`job:${hang}`), 'l2'))!.endsWith(' claimed'));
  });

  it("caps the queue's event stream", async () => {
    h = new Harness(redis);
    const store = h.newStore({ eventsMaxLen: 100 });
    const job = defineJob({ name: 'd', work: () => 1 });
    const client = h.client({ jobs: [job], store });
    for (let i = 0; i < 10; i++)
      await client.enqueueMany(Array.from({ length: 100 }, () => ({ machine: 'd', input: i })));
    const len = await h.raw.xlen(h.key('events'));
    assert.ok(len < 400, `stream holds ${len} entries with a cap of ~100`);
  });
});
