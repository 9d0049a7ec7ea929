// Minimal records (`record: 'minimal'`, docs/concepts.md) on both stores: a job that ends done
// leaves no record, no index entry, no audit log and no stream entry, but its waiter gets the
// result and the queue's tally counts it; a failed one stays whole in the dead letters; retries
// and cancels work as for any job; the enqueue option overrides the definition.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, NonRetryableError, ValidationError } from '../../src/index.js';
import { hasMinuteTallies } from '../../src/store/roles/MinuteTallies.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { eventually } from '../support/redis.js';

let gate: (() => void) | undefined;
const ping = defineJob({
  name: 'ping',
  record: 'minimal',
  retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 1 } },
  work: async ({
    input,
    attempt,
  }: {
    input: { failUntil?: number; fatal?: boolean; hold?: boolean };
    attempt: number;
  }) => {
    if (input.hold) await new Promise<void>((resolve) => (gate = resolve));
    if (input.fatal) throw new NonRetryableError('fatal');
    if (attempt < (input.failUntil ?? 0)) throw new Error(`attempt ${attempt} failed`);
    return { pong: attempt };
  },
});
const plain = defineJob({ name: 'plain', work: () => 'kept' });
const jobs = [ping, plain];

/** Every stream entry of the queue, by job id. */
async function streamIds(h: AnyStoreWorld): Promise<string[]> {
  return (await h.store.readEvents('default', '0', 0, 10_000)).map((e) => e.jobId);
}

describeOnEachStore('minimal records', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('a done job leaves no record, index entry, log or stream entry; its waiter got the result', async () => {
    h = world();
    const client = h.client({ jobs });
    const id = await client.enqueue('ping', {});
    const waiting = client.waitForResult(id, { timeoutMs: 10_000 });
    await h.started({ jobs });
    const rec = await waiting;
    assert.equal(rec.status, 'done');
    assert.deepEqual(rec.output, { pong: 1 });
    await eventually(async () => (await client.get(id)) === null, 5000);
    assert.equal(await h.indexScore('done', id), null);
    assert.equal(await h.indexScore('active', id), null);
    assert.ok(!(await h.storedKeys()).some((k) => k.includes(id)), 'nothing of the job is stored');
    assert.ok(!(await streamIds(h)).includes(id), 'no stream entry names it');
  });

  it('a job no one waits for goes the plain way, and the queue tally still counts it', async () => {
    h = world();
    const client = h.client({ jobs });
    const ids = await client.enqueueMany([1, 2, 3].map(() => ({ machine: 'ping', input: {} })));
    const kept = await client.enqueue('plain', {});
    await h.started({ jobs });
    await client.waitForResult(kept, { timeoutMs: 10_000 });
    await eventually(
      async () => (await Promise.all(ids.map((id) => client.get(id)))).every((r) => r === null),
      5000,
    );
    assert.ok(hasMinuteTallies(h.store));
    const minute = Math.floor((await h.store.now()) / 60_000);
    const tallies = await h.store.minuteTallies('default', minute - 1, 2);
    assert.equal(
      tallies.reduce((n, t) => n + (t.d ?? 0), 0),
      4,
      'three minimal jobs and the plain one',
    );
    const told = await streamIds(h);
    assert.ok(told.includes(kept), 'the full record is told');
    for (const id of ids) assert.ok(!told.includes(id));
  });

  it('a retried job runs again and then goes, with no log written on the way', async () => {
    h = world();
    const client = h.client({ jobs });
    const id = await client.enqueue('ping', { failUntil: 3 });
    const waiting = client.waitForResult(id, { timeoutMs: 10_000 });
    await h.started({ jobs });
    const rec = await waiting;
    assert.equal(rec.status, 'done');
    assert.deepEqual(rec.output, { pong: 3 });
    assert.equal(rec.attempts, 3);
    await eventually(async () => (await client.get(id)) === null, 5000);
  });

  it('a failed job stays whole in the dead letters, with no audit log', async () => {
    h = world();
    const client = h.client({ jobs });
    const id = await client.enqueue('ping', { fatal: true });
    const waiting = client.waitForResult(id, { timeoutMs: 10_000 });
    await h.started({ jobs });
    const rec = await waiting;
    assert.equal(rec.status, 'failed');
    const kept = await client.get(id);
    assert.equal(kept?.status, 'failed');
    assert.deepEqual(kept?.input, { fatal: true });
    assert.equal(kept?.error?.message, 'fatal');
    const dead = await client.deadLetters();
    assert.deepEqual(
      dead.map((d) => d.id),
      [id],
    );
    assert.equal(dead[0]!.error?.message, 'fatal');
    assert.deepEqual(await client.events(id), []);
    assert.ok(!(await streamIds(h)).includes(id));
  });

  it('a running job is cancelled as any job: its record is kept, its cancel request logged', async () => {
    h = world();
    const client = h.client({ jobs });
    const id = await client.enqueue('ping', { hold: true });
    await h.started({ jobs });
    await eventually(async () => (await client.get(id))?.status === 'working', 5000);
    assert.equal(await client.cancel(id), true);
    await eventually(async () => (await client.get(id))?.status === 'cancelled', 5000);
    assert.deepEqual(
      (await client.events(id)).map((e) => e.type),
      ['cancel-requested'],
    );
    gate?.();
  });

  it("the enqueue's record option overrides the definition's, both ways", async () => {
    h = world();
    const client = h.client({ jobs });
    const full = await client.enqueue('ping', {}, { record: 'full' });
    const minimal = await client.enqueue('plain', {}, { record: 'minimal' });
    await h.started({ jobs });
    assert.equal((await client.waitForResult(full, { timeoutMs: 10_000 })).status, 'done');
    await eventually(async () => (await client.get(minimal)) === null, 5000);
    assert.equal((await client.get(full))?.status, 'done');
    assert.deepEqual(
      (await client.events(full)).map((e) => e.type),
      ['enqueued', 'claimed', 'done'],
    );
  });

  it('an idempotency key names the job after its record is gone: the enqueue again makes nothing', async () => {
    h = world();
    const client = h.client({ jobs });
    const id = await client.enqueue('ping', {}, { idempotencyKey: 'k1' });
    await h.started({ jobs });
    await eventually(async () => (await client.get(id)) === null, 5000);
    const again = await client.enqueueWithInfo('ping', {}, { idempotencyKey: 'k1' });
    assert.equal(again.id, id);
    assert.equal(again.deduplicated, true);
    assert.equal(await client.get(id), null, 'nothing was made again');
  });

  it('a definition or enqueue asking for a minimal record with webhooks or a dedupe key is refused or kept full', async () => {
    h = world();
    const client = h.client({ jobs });
    await assert.rejects(
      client.enqueue('plain', {}, { record: 'minimal', webhook: { url: 'http://127.0.0.1:1/hook' } }),
      (e: unknown) => e instanceof ValidationError && /record/.test(e.message),
    );
    await assert.rejects(
      client.enqueue('plain', {}, { record: 'minimal', dedupe: { key: 'd' } }),
      (e: unknown) => e instanceof ValidationError && /record/.test(e.message),
    );
    // The definition's default yields to a dedupe key: the job keeps a full record.
    const id = await client.enqueue('ping', {}, { dedupe: { key: 'd' } });
    await h.started({ jobs });
    assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).status, 'done');
    assert.equal((await client.get(id))?.status, 'done');
    assert.throws(
      () => defineJob({ name: 'bad', record: 'tiny' as 'full', work: () => 1 }),
      /record must be/,
    );
  });
});
