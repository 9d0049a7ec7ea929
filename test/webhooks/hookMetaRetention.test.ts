// Issue 21: a job's webhook bookkeeping (`hookmeta:<id>`: the last status told, receivers that
// answered 410) expired after a fixed 48 h, whatever the job's own retention: a dead letter
// redriven after two days had forgotten the 410 its final receiver gave. It now lives exactly as
// long as the job's record, and goes with it at the record's retention. On both stores.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';
import { RedisStore } from '../../src/store/redis/RedisStore.js';
import type { Store, WebhookHost } from '../../src/store/types.js';
import { claim, newJob } from '../store/conformance/support.js';
import { sleep, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

const HOUR = 3600 * 1000;
const ERR = '{"name":"E","message":"m"}';

/** A dead letter with a webhook whose final receiver answered 410 (the dispatcher told it, then disabled it). */
async function deadLetterWithA410(store: Store & WebhookHost): Promise<string> {
  const [r] = await store.enqueue('default', [
    newJob({ options: '{"webhook":{"url":"http://127.0.0.1:9/final"}}', hooked: true }),
  ]);
  const id = r!.id;
  const [c] = await claim(store);
  await store.commit('default', [{ kind: 'fail', id, token: c!.token, error: ERR, log: [] }]);
  const hooks = store.webhookStore('default');
  assert.equal(await hooks.lease('dispatcher', 60_000), true);
  await hooks.schedule('dispatcher', { messages: [], last: new Map(), finished: [id], cursor: '0-0' }, 0);
  await hooks.disable(id, 'f');
  hooks.close();
  return id;
}

async function finalReceiverOff(store: Store & WebhookHost, id: string): Promise<boolean | undefined> {
  const hooks = store.webhookStore('default');
  try {
    return (await hooks.jobs([id])).get(id)?.off.f;
  } finally {
    hooks.close();
  }
}

describe('webhook bookkeeping follows the job’s retention', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('MemoryStore: a dead letter kept past 48 h still knows its 410; both go at failedTtlMs', async () => {
    let now = Date.now();
    const store = new MemoryStore({ now: () => now, failedTtlMs: 7 * 24 * HOUR });
    try {
      const id = await deadLetterWithA410(store);
      now += 49 * HOUR;
      await store.sweep('default');
      assert.equal((await store.getJob(id))?.status, 'failed', 'the dead letter is kept');
      assert.equal(await finalReceiverOff(store, id), true, 'and so is its 410');
      now += 7 * 24 * HOUR;
      await store.sweep('default');
      assert.equal(await store.getJob(id), null, 'the dead letter is gone at failedTtlMs');
      // The store's state is in its core (src/store/memory/MemoryCore.ts).
      type Queues = Map<string, { hooks: { meta: Map<string, unknown> } }>;
      const q = (store as unknown as { core: { queueData: Queues } }).core.queueData;
      assert.equal(q.get('default')!.hooks.meta.has(id), false, 'with its hook record');
    } finally {
      await store.close();
    }
  });

  it('RedisStore: the hook record has no fixed TTL while the job is kept, and goes with it', async () => {
    const prefix = uniquePrefix('hookret');
    const store = new RedisStore({ url: redis.url, prefix, failedTtlMs: 300 });
    try {
      const id = await deadLetterWithA410(store);
      const meta = `${prefix}:{default}:hookmeta:${id}`;
      assert.equal(await store.redis.pttl(meta), -1, 'it lives as long as the job’s record');
      assert.equal(await finalReceiverOff(store, id), true);
      await sleep(400);
      await store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 });
      assert.equal(await store.getJob(id), null, 'the dead letter is gone at failedTtlMs');
      assert.equal(await store.redis.exists(meta), 0, 'with its hook record');
    } finally {
      await store.close();
    }
  });
});
