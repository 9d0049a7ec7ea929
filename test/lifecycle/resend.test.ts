// A client resends a command whose reply was lost (ioredis does so across a reconnect): the
// resent enqueue and send must change nothing the first one did.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import type { NewJob } from '../../src/store/types.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('resent commands', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const newJob = (id: string): NewJob => ({
    id,
    machine: 'j',
    version: 1,
    input: '{"n":1}',
    band: 2,
    delayMs: 0,
    maxAttempts: 3,
  });

  it('a resent enqueue of a job that was claimed and finished leaves it finished, with one enqueued entry', async () => {
    h = new Harness(redis);
    const job = defineJob({ name: 'j', work: () => 'ok' });
    const client = h.client({ jobs: [job] });
    const id = '01JRESENT0000000000000000A';
    assert.deepEqual(await h.store.enqueue('default', [newJob(id)]), [{ id, created: true }]);
    await h.started({ jobs: [job] });
    const done = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(done.status, 'done');
    // The same command again, as ioredis would resend it.
    assert.deepEqual(await h.store.enqueue('default', [newJob(id)]), [{ id, created: false }]);
    const rec = await client.get(id);
    assert.equal(rec?.status, 'done');
    assert.equal(rec?.output, 'ok');
    assert.equal(await h.inLine(id), false);
    const types = (await client.events(id)).map((e) => e.type);
    assert.deepEqual(
      types.filter((t) => t === 'enqueued'),
      ['enqueued'],
    );
  });

  it('a resent enqueue of a running job does not put it back in line', async () => {
    h = new Harness(redis);
    const id = '01JRESENT0000000000000000B';
    await h.store.enqueue('default', [newJob(id)]);
    assert.equal((await h.claimAs())[0]?.id, id);
    await h.store.enqueue('default', [newJob(id)]);
    assert.equal((await h.store.getJob(id))?.status, 'working');
    assert.equal(await h.inLine(id), false);
    assert.notEqual(await h.raw.hget(h.key(`job:${id}`), 'tk'), '');
  });

  it('a resent send delivers its event once', async () => {
    h = new Harness(redis);
    const id = '01JRESENT0000000000000000C';
    await h.store.enqueue('default', [newJob(id)]);
    const event = '{"type":"GO"}';
    assert.equal(await h.store.send(id, 'default', event, 'GO', 'e1'), true);
    assert.equal(await h.store.send(id, 'default', event, 'GO', 'e1'), false);
    assert.equal(await h.store.send(id, 'default', event, 'GO', 'e2'), true);
    assert.deepEqual(await h.store.readInbox(id, 'default', 0), [event, event]);
    const received = (await h.store.getLog(id)).filter((e) => e.type === 'event-received');
    assert.equal(received.length, 2);
  });

  it('client.send with the same eventId is taken once', async () => {
    h = new Harness(redis);
    const id = '01JRESENT0000000000000000D';
    await h.store.enqueue('default', [newJob(id)]);
    const client = h.client();
    await client.send(id, { type: 'GO' }, { eventId: 'order-7' });
    await client.send(id, { type: 'GO' }, { eventId: 'order-7' });
    assert.equal((await h.store.readInbox(id, 'default', 0)).length, 1);
  });
});
