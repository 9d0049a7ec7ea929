import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { gate, untilAborted } from '../support/harness.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('cancel', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('cancels a queued job at once, and it never runs', async () => {
    h = world();
    let runs = 0;
    const job = defineJob({ name: 'c', work: () => void runs++ });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('c', null);
    assert.equal(await client.cancel(id), true);
    const rec = await client.get(id);
    assert.equal(rec?.status, 'cancelled');
    assert.ok(rec?.finishedAt);
    assert.equal(await h.indexScore('queued', id), null);
    const other = await client.enqueue('c', null);
    await h.started({ jobs: [job] });
    await client.waitForResult(other, { timeoutMs: 5000 });
    assert.equal(runs, 1, 'only the job that was not cancelled ran');
    assert.equal((await client.get(id))?.status, 'cancelled');
  });

  it('cancels a delayed job at once and takes it out of the delayed set', async () => {
    h = world();
    const job = defineJob({ name: 'c', work: () => 1 });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('c', null, { delayMs: 60_000 });
    assert.notEqual(await h.indexScore('delayed', id), null);
    assert.equal(await client.cancel(id), true);
    assert.equal((await client.get(id))?.status, 'cancelled');
    assert.equal(await h.indexScore('delayed', id), null);
    // A finished job cannot be cancelled again.
    assert.equal(await client.cancel(id), false);
  });

  it('reports attempts 0 for a job cancelled before it ever ran, and 1 once it has run', async () => {
    h = world();
    const job = defineJob({ name: 'c', work: ({ signal }) => untilAborted(signal) });
    const client = h.client({ jobs: [job] });
    const delayed = await client.enqueue('c', null, { delayMs: 60_000 });
    assert.equal((await client.get(delayed))?.attempts, 0, 'a queued job has not run yet');
    await client.cancel(delayed);
    const never = await client.get(delayed);
    assert.equal(never?.status, 'cancelled');
    assert.equal(never?.attempts, 0);

    const ran = await client.enqueue('c', null);
    await h.started({ jobs: [job] });
    await eventually(async () => (await client.get(ran))?.status === 'working');
    assert.equal((await client.get(ran))?.attempts, 1);
    await client.cancel(ran);
    const rec = await client.waitForResult(ran, { timeoutMs: 5000 });
    assert.equal(rec.status, 'cancelled');
    assert.equal(rec.attempts, 1);
  });

  it("fires a running job's AbortSignal promptly and ends it cancelled", async () => {
    h = world();
    const started = gate();
    let abortedAt = 0;
    let reason: string | undefined;
    const job = defineJob({
      name: 'long',
      work: async ({ signal }) => {
        signal.addEventListener('abort', () => {
          abortedAt = Date.now();
          reason = (signal.reason as { reason?: string }).reason;
        });
        started.open();
        return untilAborted(signal);
      },
    });
    const client = h.client({ jobs: [job] });
    // A heartbeat far away: only the control message (to the worker the lease token names) can
    // tell the worker in time.
    await h.started({ jobs: [job], heartbeatMs: 5000, leaseMs: 15_000 });
    const id = await client.enqueue('long', null);
    await started.promise;
    const cancelAt = Date.now();
    assert.equal(await client.cancel(id), true);
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'cancelled');
    assert.equal(reason, 'cancel');
    assert.ok(abortedAt - cancelAt < 1000, `signal fired ${abortedAt - cancelAt} ms after cancel`);
    const types = (await client.events(id)).map((e) => e.type);
    assert.deepEqual(types, ['enqueued', 'claimed', 'cancel-requested', 'cancelled']);
    assert.equal((rec.snapshot as { l: { value: string } }).l.value, 'cancelled');
  });

  it('learns of a cancel within one heartbeat when no control message arrives', async () => {
    h = world();
    // Without the pub/sub channel, the heartbeat's reply is the only way the worker hears.
    (h.store as { subscribeControl?: unknown }).subscribeControl = undefined;
    const started = gate();
    let abortedAt = 0;
    const job = defineJob({
      name: 'long',
      work: async ({ signal }) => {
        signal.addEventListener('abort', () => (abortedAt = Date.now()));
        started.open();
        return untilAborted(signal);
      },
    });
    const client = h.client({ jobs: [job] });
    const sup = await h.started({ jobs: [job], heartbeatMs: 250 });
    const id = await client.enqueue('long', null);
    await started.promise;
    const cancelAt = Date.now();
    await client.cancel(id);
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'cancelled');
    // One heartbeat interval plus scheduling slack on a busy machine.
    assert.ok(
      abortedAt - cancelAt <= sup.heartbeatMs + 400,
      `signal fired ${abortedAt - cancelAt} ms after cancel`,
    );
  });

  it('ends cancelled a job whose worker died after the cancel was asked for', async () => {
    h = world();
    const client = h.client({ jobs: [defineJob({ name: 'c', work: () => 1 })] });
    const id = await client.enqueue('c', null);
    // A worker that claims and then vanishes (no heartbeat, no writes).
    const { claimed } = await h.store.commit('default', [], {
      workerId: 'ghost',
      max: 1,
      leaseMs: 200,
      loadMachines: [],
    });
    assert.equal(claimed[0]?.id, id);
    assert.equal(await client.cancel(id), true);
    assert.equal((await client.get(id))?.status, 'working');
    assert.equal((await client.get(id))?.cancelRequested, true);
    await eventually(async () => {
      await h.store.reap('default', { maxLeaseRequeues: 5 });
      return (await client.get(id))?.status === 'cancelled';
    });
  });
});
