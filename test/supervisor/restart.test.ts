// A supervisor can be stopped and started again: it runs jobs again and hears a cancel's control
// message once.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { gate, untilAborted } from '../support/harness.js';
import { hasControlChannel } from '../../src/store/roles/ControlChannel.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('restart', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('runs jobs again, and hears cancels once, after stop() and start()', async () => {
    h = world();
    const started = gate();
    const aborts: string[] = [];
    const job = defineJob({ name: 'j', work: ({ input }: { input: number }) => input + 1 });
    const long = defineJob({
      name: 'long',
      work: async ({ signal }) => {
        signal.addEventListener('abort', () => aborts.push((signal.reason as { reason: string }).reason));
        started.open();
        return untilAborted(signal);
      },
    });
    const jobs = [job, long];
    const client = h.client({ jobs });
    // Counts the control messages delivered to the supervisor.
    const messages: string[] = [];
    const store = h.store;
    assert.ok(hasControlChannel(store), 'both stores push control messages');
    const subscribe = store.subscribeControl.bind(store);
    store.subscribeControl = (queue, workerId, onMessage) =>
      subscribe(queue, workerId, (m) => {
        messages.push(m);
        onMessage(m);
      });
    // A heartbeat far away: a cancel in time can only come by the control channel.
    const sup = await h.started({ jobs, leaseMs: 15_000, heartbeatMs: 5000 });
    const first = await client.enqueue('j', 1);
    assert.equal((await client.waitForResult(first, { timeoutMs: 5000 })).output, 2);
    await sup.stop({ graceMs: 1000 });

    await sup.start();
    const again = await client.enqueue('j', 41);
    assert.equal((await client.waitForResult(again, { timeoutMs: 5000 })).output, 42);
    // The control channel works after the restart, once: a cancel comes before any heartbeat.
    const id = await client.enqueue('long', null);
    await started.promise;
    const t0 = performance.now();
    await client.cancel(id);
    assert.equal((await client.waitForResult(id, { timeoutMs: 5000 })).status, 'cancelled');
    assert.ok(performance.now() - t0 < 2500, 'cancelled by the control message, not a heartbeat');
    assert.deepEqual(aborts, ['cancel']);
    assert.deepEqual(messages, [`cancel ${id}`], 'delivered once');
    await sup.stop({ graceMs: 1000 });
    assert.deepEqual(await sup.stop(), { forced: false, requeued: 0 }, 'a second stop() is a no-op');
  });
});
