// A send repeated with the same eventId after its job ended. The first send delivered the event
// and the job took it and ended, but the caller never saw the answer: ioredis sends a command
// again on a new connection when the reply was lost (chaos T6 drops replies so), and an HTTP
// caller retries with the same Idempotency-Key. The repeat MUST answer as the first did (the
// event is delivered once per id: Client.send, docs/backends.md), not JOB_FINISHED: the ids of a
// job's sent events are kept with its record once it has ended, and a new event is still refused.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { JobFinishedError, definePipeline } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const waitsForGo = definePipeline({
  name: 'waitsForGo',
  machine: setup({ types: { events: {} as { type: 'GO' } } }).createMachine({
    initial: 'waiting',
    states: { waiting: { on: { GO: 'end' } }, end: { type: 'final' } },
  }),
});

describeOnEachStore('a send repeated after its job ended', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('answers a repeat of a delivered eventId as delivered, once, and refuses a new event with JOB_FINISHED', async () => {
    h = world();
    await h.started({ jobs: [waitsForGo] });
    const client = h.client({ jobs: [waitsForGo] });
    const id = await client.enqueue('waitsForGo', {});
    await client.send(id, { type: 'GO' }, { eventId: 'go-1' });
    assert.equal((await client.waitForResult(id, { timeoutMs: 8000 })).status, 'done');

    await client.send(id, { type: 'GO' }, { eventId: 'go-1' });
    await client.send(id, { type: 'GO' }, { eventId: 'go-1', queue: 'default' });
    await assert.rejects(client.send(id, { type: 'GO' }, { eventId: 'go-2' }), (err: unknown) => {
      assert.ok(err instanceof JobFinishedError);
      assert.equal(err.code, 'JOB_FINISHED');
      return true;
    });
    const received = (await client.events(id)).filter((e) => e.type === 'event-received');
    assert.equal(received.length, 1, 'the event was delivered once');
  });

  it('answers a repeat as delivered for a job cancelled after the event was sent', async () => {
    h = world();
    const client = h.client({ jobs: [waitsForGo] });
    const id = await client.enqueue('waitsForGo', {});
    await client.send(id, { type: 'GO' }, { eventId: 'go-1' });
    await client.cancel(id);
    assert.equal((await client.get(id))?.status, 'cancelled');
    await client.send(id, { type: 'GO' }, { eventId: 'go-1' });
    await assert.rejects(client.send(id, { type: 'GO' }, { eventId: 'go-2' }), JobFinishedError);
  });
});
