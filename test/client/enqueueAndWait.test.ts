// Client.enqueueAndWait on both stores: the enqueue registers its caller's watch on the job in
// the same atomic step that makes it, so a minimal job (its record deleted as it ends done) that
// ends before the enqueue even answers still delivers its result. Each race is made certain by a
// store whose enqueue answers only once its jobs are gone (endsBeforeReply).

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, JobNotFoundError } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { endsBeforeReply } from '../support/endsBeforeReply.js';
import { ping, releaseHeld } from '../fixtures/minimalPing.js';
import { eventually } from '../support/redis.js';

const full = defineJob({ name: 'full', work: ({ input }: { input: { n: number } }) => input.n });
const jobs = [ping, full];

describeOnEachStore('enqueueAndWait', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('has the result of a minimal job that ended before its enqueue answered', async () => {
    h = world();
    await h.started({ jobs });
    const client = h.client({ jobs, store: endsBeforeReply(h.store) });
    const rec = await client.enqueueAndWait('ping', { n: 7 }, undefined, { timeoutMs: 10_000 });
    assert.equal(rec.status, 'done');
    assert.deepEqual(rec.output, { pong: 7 });
    assert.equal(await client.get(rec.id), null, 'the record is gone, as a minimal one goes');
    // The two-call way cannot see it: the job ended between the calls (docs/concepts.md).
    const id = await client.enqueue('ping', { n: 8 });
    await assert.rejects(client.waitForResult(id, { timeoutMs: 10_000 }), JobNotFoundError);
  });

  it('gives each of many concurrent minimal no-op jobs its result, a supervisor waiting with free slots', async () => {
    h = world();
    await h.started({ jobs, concurrency: 8 });
    const client = h.client({ jobs });
    for (let round = 0; round < 5; round++) {
      const recs = await Promise.all(
        Array.from({ length: 40 }, (_, n) =>
          client.enqueueAndWait('ping', { n }, undefined, { timeoutMs: 10_000 }),
        ),
      );
      assert.deepEqual(
        recs.map((r) => r.output),
        Array.from({ length: 40 }, (_, n) => ({ pong: n })),
      );
    }
  });

  it('watches the running job an idempotency key keeps, ending before the enqueue answered', async () => {
    h = world();
    await h.started({ jobs });
    const client = h.client({ jobs });
    const first = await client.enqueue('ping', { n: 1, hold: true }, { idempotencyKey: 'k1' });
    await eventually(async () => (await client.get(first))?.status === 'working', 5000);
    const racing = h.client({ jobs, store: endsBeforeReply(h.store, releaseHeld) });
    // Two waits of one client kept the same job: its one result serves both.
    const recs = await Promise.all(
      [2, 3].map((n) =>
        racing.enqueueAndWait('ping', { n }, { idempotencyKey: 'k1' }, { timeoutMs: 10_000 }),
      ),
    );
    for (const rec of recs) {
      assert.equal(rec.id, first, 'the kept job');
      assert.deepEqual(rec.output, { pong: 1 });
    }
    // Kept, but gone before this enqueue: nothing to wait for.
    await assert.rejects(
      client.enqueueAndWait('ping', { n: 3 }, { idempotencyKey: 'k1' }, { timeoutMs: 10_000 }),
      JobNotFoundError,
    );
  });

  it('answers the job a dedupe key keeps, running or finished, and says it was kept', async () => {
    h = world();
    const client = h.client({ jobs });
    const first = await client.enqueue(
      'full',
      { n: 1 },
      { dedupe: { key: 'd', mode: 'ttl', ttlMs: 60_000 } },
    );
    const waiting = client.enqueueAndWaitWithInfo(
      'full',
      { n: 2 },
      { dedupe: { key: 'd', mode: 'ttl', ttlMs: 60_000 } },
      { timeoutMs: 10_000 },
    );
    const info = await waiting;
    assert.equal(info.id, first);
    assert.equal(info.deduplicated, true);
    await h.started({ jobs });
    assert.equal((await info.result).output, 1);
    // Finished already: its record is the answer.
    const again = await client.enqueueAndWait(
      'full',
      { n: 3 },
      { dedupe: { key: 'd', mode: 'ttl', ttlMs: 60_000 } },
      { timeoutMs: 10_000 },
    );
    assert.equal(again.id, first);
    assert.equal(again.output, 1);
  });

  it('waits on a partitioned queue: the job is watched in the partition that makes it', async () => {
    h = world();
    const client = h.client({ jobs, store: endsBeforeReply(h.store) });
    await client.configureQueue('wide', { partitions: 3 });
    await h.started({ jobs, queue: 'wide' });
    const recs = await Promise.all(
      [1, 2, 3, 4].map((n) => client.enqueueAndWait('ping', { n }, { queue: 'wide' }, { timeoutMs: 10_000 })),
    );
    assert.deepEqual(
      recs.map((r) => r.output),
      [1, 2, 3, 4].map((n) => ({ pong: n })),
    );
    assert.ok(recs.every((r) => r.queue.startsWith('wide#')));
  });

  it('rejects with a TimeoutError naming the job when it does not finish in time', async () => {
    h = world();
    const client = h.client({ jobs });
    await assert.rejects(
      client.enqueueAndWait('full', { n: 1 }, undefined, { timeoutMs: 50 }),
      (e: unknown) =>
        (e as { code?: string }).code === 'TIMEOUT' && typeof (e as { jobId?: string }).jobId === 'string',
    );
  });
});
