// Client.send with the queue named: the event goes in the send's one store call, with no read of
// the job's record first (the send itself refuses a job the queue does not hold, or a finished one), and
// its refusals are the ones a send without the queue gives.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { Client, JobFinishedError, JobNotFoundError, definePipeline } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const waitsForGo = definePipeline({
  name: 'waitsForGo',
  machine: setup({ types: { events: {} as { type: 'GO' } } }).createMachine({
    initial: 'waiting',
    states: { waiting: { on: { GO: 'end' } }, end: { type: 'final' } },
  }),
});

/** The store's calls by name, as a client makes them. */
function counted(store: Store): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...args: unknown[]) => {
        calls.set(prop, (calls.get(prop) ?? 0) + 1);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

describeOnEachStore('Client.send with the queue named', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('delivers the event with the send alone, reading no record first', async () => {
    h = world();
    const id = await h.client({ jobs: [waitsForGo] }).enqueue('waitsForGo', {});
    const { store, calls } = counted(h.store);
    const client = new Client({ store, jobs: [waitsForGo] });
    try {
      await client.send(id, { type: 'GO' }, { queue: 'default' });
      // (The queue's partition count is read once per client, to place the job.)
      calls.delete('partitions');
      assert.deepEqual(Object.fromEntries(calls), { send: 1 });
    } finally {
      client.close();
    }
    const log = await h.client().events(id);
    assert.deepEqual(
      log.filter((e) => e.type === 'event-received').map((e) => e.event),
      ['GO'],
    );
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
