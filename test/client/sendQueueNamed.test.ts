// Client.send with the queue named: the event goes in the send's one store call, with no read of
// the job's record first (the send itself refuses a job the queue does not hold, or a finished one), and
// its refusals are the ones a send without the queue gives. Without the queue, the send looks up
// which queue holds the job (Store.queueOf), and reads no record either: a record carries its
// input and snapshot, megabytes for some jobs, and a send read it whole only to learn its queue.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { Client, JobFinishedError, JobNotFoundError, definePipeline } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { countingStore } from '../support/countingStore.js';

const waitsForGo = definePipeline({
  name: 'waitsForGo',
  machine: setup({ types: { events: {} as { type: 'GO' } } }).createMachine({
    initial: 'waiting',
    states: { waiting: { on: { GO: 'end' } }, end: { type: 'final' } },
  }),
});

describeOnEachStore('Client.send, with the queue named or not', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  /** GO sent to a fresh job by a client whose store calls are counted: what the send asked of it. */
  async function sendCounted(options: { queue?: string }): Promise<Record<string, number>> {
    const id = await h.client({ jobs: [waitsForGo] }).enqueue('waitsForGo', {});
    const { store, calls } = countingStore(h.store);
    const client = new Client({ store, jobs: [waitsForGo] });
    try {
      await client.send(id, { type: 'GO' }, options);
    } finally {
      client.close();
    }
    const log = await h.client().events(id);
    assert.deepEqual(
      log.filter((e) => e.type === 'event-received').map((e) => e.event),
      ['GO'],
    );
    // (The queue's partition count is read once per client, to place the job.)
    calls.delete('partitions');
    return Object.fromEntries(calls);
  }

  it('delivers the event with the send alone, reading no record first', async () => {
    h = world();
    assert.deepEqual(await sendCounted({ queue: 'default' }), { send: 1 });
  });

  it('without the queue: finds the queue holding the job, then sends, reading no record', async () => {
    h = world();
    assert.deepEqual(await sendCounted({}), { queueOf: 1, send: 1 });
    await assert.rejects(h.client().send('no-such-job', { type: 'GO' }), (err: unknown) => {
      assert.ok(err instanceof JobNotFoundError);
      assert.equal(err.message, 'job no-such-job does not exist');
      return true;
    });
  });

  it('refuses a job the queue does not hold, naming the queue, and a finished job', async () => {
    h = world();
    const client = h.client({ jobs: [waitsForGo] });
    await assert.rejects(client.send('no-such-job', { type: 'GO' }, { queue: 'default' }), (err: unknown) => {
      assert.ok(err instanceof JobNotFoundError);
      assert.equal(err.message, "job no-such-job does not exist in queue 'default'");
      return true;
    });
    const id = await client.enqueue('waitsForGo', {});
    await client.cancel(id);
    await assert.rejects(client.send(id, { type: 'GO' }, { queue: 'default' }), JobFinishedError);
    await assert.rejects(client.send(id, { type: 'GO' }), JobFinishedError);
  });
});
