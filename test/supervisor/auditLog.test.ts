import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually, sleep } from '../support/redis.js';
import { gate, untilAborted } from '../support/harness.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('audit log', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('records enqueued, claimed, state entered, progress, retry scheduled and done, each with a timestamp', async () => {
    h = world();
    const job = defineJob({
      name: 'a',
      retry: { backoff: { type: 'fixed', delayMs: 10 } },
      load: () => 'loaded',
      work: async ({ attempt, progress }) => {
        if (attempt === 1) throw new Error('first try fails');
        progress({ pct: 50 });
        await sleep(100);
        return 'ok';
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('a', null);
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.deepEqual(rec.progress, { pct: 50 });
    const log = await client.events(id);
    assert.deepEqual(
      log.map((e) => e.type),
      ['enqueued', 'claimed', 'state', 'retry-scheduled', 'claimed', 'state', 'progress', 'done'],
    );
    assert.equal(log[2]!.state, 'working');
    assert.deepEqual(log[6]!.progress, { pct: 50 });
    assert.equal((log[3]!.error as { message: string }).message, 'first try fails');
    for (const e of log)
      assert.ok(Number.isInteger(e.at) && e.at > 1_600_000_000_000, `timestamp of ${e.type}`);
    for (let i = 1; i < log.length; i++) assert.ok(log[i]!.at >= log[i - 1]!.at, 'in time order');
  });

  it('records failed, cancelled and lease requeue', async () => {
    h = world();
    const started = gate();
    const job = defineJob({
      name: 'b',
      retry: { maxAttempts: 1 },
      work: async ({ input, signal }: { input: string; signal: AbortSignal }) => {
        if (input === 'fail') throw new Error('bad');
        if (input === 'hang') {
          started.open();
          return untilAborted(signal);
        }
        return input;
      },
    });
    const client = h.client({ jobs: [job] });
    const leased = await client.enqueue('b', 'leased');
    await h.store.commit('default', [], { workerId: 'ghost', max: 1, leaseMs: 100, loadMachines: [] });
    await h.started({ jobs: [job] });
    const failed = await client.enqueue('b', 'fail');
    const hang = await client.enqueue('b', 'hang');
    const queuedCancel = await client.enqueue('b', 'x', { delayMs: 60_000 });
    await client.waitForResult(failed, { timeoutMs: 5000 });
    await started.promise;
    await client.cancel(hang);
    await client.cancel(queuedCancel);
    await client.waitForResult(hang, { timeoutMs: 5000 });
    await client.waitForResult(leased, { timeoutMs: 5000 });

    const types = async (id: string) => (await client.events(id)).map((e) => e.type);
    assert.deepEqual(await types(failed), ['enqueued', 'claimed', 'failed']);
    assert.deepEqual(await types(hang), ['enqueued', 'claimed', 'cancel-requested', 'cancelled']);
    assert.deepEqual(await types(queuedCancel), ['enqueued', 'cancelled']);
    assert.deepEqual(await types(leased), ['enqueued', 'claimed', 'lease-requeued', 'claimed', 'done']);
  });

  it("publishes every transition on the queue's event stream", async () => {
    h = world();
    const job = defineJob({
      name: 'c',
      retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } },
      work: ({
        input,
        attempt,
        progress,
      }: {
        input: string;
        attempt: number;
        progress: (v: unknown) => void;
      }) => {
        progress(attempt);
        if (input === 'fail') throw new Error('no');
        return input;
      },
    });
    const client = h.client({ jobs: [job] });
    const start = await h.store.lastEventCursor('default');
    const leased = await client.enqueue('c', 'leased');
    await h.store.commit('default', [], { workerId: 'ghost', max: 1, leaseMs: 100, loadMachines: [] });
    await h.started({ jobs: [job] });
    const ok = await client.enqueue('c', 'ok');
    const fail = await client.enqueue('c', 'fail');
    const cancelled = await client.enqueue('c', 'x', { delayMs: 60_000 });
    await client.cancel(cancelled);
    for (const id of [ok, fail, leased]) await client.waitForResult(id, { timeoutMs: 5000 });

    const events = (await eventually(async () => {
      const ev = await h.store.readEvents('default', start, 0, 1000);
      return ev.some((e) => e.jobId === leased && e.type === 'done') ? ev : null;
    }))!;
    const of = (id: string) => events.filter((e) => e.jobId === id).map((e) => e.type);
    // Each attempt's progress report is written (a checkpoint) before the attempt's ending.
    assert.deepEqual(of(leased), ['enqueued', 'claimed', 'lease-requeued', 'claimed', 'checkpoint', 'done']);
    assert.deepEqual(of(cancelled), ['enqueued', 'cancelled']);
    assert.deepEqual(of(fail), [
      'enqueued',
      'claimed',
      'checkpoint',
      'retry',
      'claimed',
      'checkpoint',
      'failed',
    ]);
    const okEvents = of(ok);
    assert.equal(okEvents[0], 'enqueued');
    assert.equal(okEvents[1], 'claimed');
    assert.equal(okEvents.at(-1), 'done');
    for (const e of events) assert.ok(e.at > 0 && e.cursor.includes('-'));
    const statusOf = events.find((e) => e.jobId === fail && e.type === 'failed')?.status;
    assert.equal(statusOf, 'failed');
  });
});
