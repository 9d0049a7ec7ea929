// The HookStore interface's behaviour, case by case, for any backend (RedisHookStore,
// MemoryHookStore): the lease, the fenced schedule, the hooked list, chains and their due
// times, 410s, and the reads the sweep makes. Each case gets a fresh store.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store, WebhookHost } from '../../../src/store/types.js';
import type { HookMessage, HookSchedule, HookStore } from '../../../src/store/HookStore.js';
import { DONE_LOG, claim, newJob, sleep } from '../../store/conformance/support.js';

export interface HookStoreFactory {
  name: string;
  /** A fresh, empty store; the case closes it (and the hook store of queue 'default'). */
  make(): Promise<Store & WebhookHost>;
}

const HOOKS = JSON.stringify({
  webhook: { url: 'https://example.com/f', stateUrl: 'https://example.com/s' },
});

function msg(id: string, n = 0): HookMessage {
  return { id, url: 'https://example.com/f', body: `{"n":${n}}`, first: 1000, tries: 0 };
}

function schedule(fields: Partial<HookSchedule> = {}): HookSchedule {
  return { messages: [], last: new Map(), finished: [], cursor: '0-0', ...fields };
}

export function describeHookStore(factory: HookStoreFactory): void {
  describe(`${factory.name}: the HookStore interface`, () => {
    const test = (name: string, fn: (hooks: HookStore, store: Store) => Promise<void>) =>
      void it(name, async () => {
        const store = await factory.make();
        const hooks = store.webhookStore('default');
        try {
          await fn(hooks, store);
        } finally {
          hooks.close();
          await store.close();
        }
      });

    /** Enqueues a job; with hooks unless `hooked` is false. */
    const enqueue = async (store: Store, hooked = true): Promise<string> => {
      const [r] = await store.enqueue('default', [newJob(hooked ? { options: HOOKS, hooked } : {})]);
      return r!.id;
    };

    test('lets one owner at a time hold the lease, extends it for its owner, and frees it on release', async (hooks) => {
      assert.equal(await hooks.lease('a', 10_000), true);
      assert.equal(await hooks.lease('b', 10_000), false, 'held by a');
      assert.equal(await hooks.lease('a', 10_000), true, 'extended for its owner');
      await hooks.release('b');
      assert.equal(await hooks.lease('b', 10_000), false, 'a release by another does nothing');
      await hooks.release('a');
      assert.equal(await hooks.lease('b', 10_000), true);
    });

    test('gives a lapsed lease to another owner, and then refuses the old one its schedule', async (hooks) => {
      assert.equal(await hooks.lease('a', 50), true);
      await sleep(120);
      assert.equal(await hooks.schedule('a', schedule({ cursor: '5-0' }), Date.now()), false);
      assert.equal(await hooks.lease('b', 10_000), true);
      assert.equal(await hooks.cursor(), '0-0', 'nothing written');
    });

    test('writes nothing for a schedule from an owner that does not hold the lease', async (hooks, store) => {
      const id = await enqueue(store);
      await hooks.lease('a', 10_000);
      const s = schedule({
        messages: [{ chain: `${id}|s`, message: msg('m1') }],
        last: new Map([[id, 'queued']]),
        finished: [id],
        cursor: '9-0',
      });
      assert.equal(await hooks.schedule('b', s, Date.now()), false);
      assert.equal(await hooks.cursor(), '0-0');
      assert.deepEqual(await hooks.due(Date.now(), 10), []);
      assert.deepEqual([...(await hooks.hooked([id]))], [id]);
      assert.equal((await hooks.jobs([id])).get(id)!.last, null);
    });

    test('lists a job enqueued with hooks as hooked, and reads its hooks, status and state', async (hooks, store) => {
      const before = Date.now();
      const id = await enqueue(store);
      const plain = await enqueue(store, false);
      assert.equal(await hooks.pending(), true);
      assert.deepEqual([...(await hooks.hooked([id, plain, 'nope']))], [id]);
      const jobs = await hooks.jobs([id, plain, 'nope']);
      assert.deepEqual([...jobs.keys()], [id], 'no entry for a job without hooks or without a record');
      assert.deepEqual(jobs.get(id), {
        webhook: { url: 'https://example.com/f', stateUrl: 'https://example.com/s' },
        status: 'queued',
        state: null,
        last: null,
        off: { s: false, f: false },
      });
      const [oldest] = await hooks.oldestHooked(10);
      assert.equal(oldest!.id, id);
      assert.ok(oldest!.at >= before - 1000 && oldest!.at <= Date.now() + 1000, 'listed at about now');
    });

    test('applies a schedule whole: chains in order and due now, last statuses, finished jobs unhooked, the cursor', async (hooks, store) => {
      const id = await enqueue(store);
      await hooks.lease('a', 10_000);
      const now = Date.now();
      const s = schedule({
        messages: [
          { chain: `${id}|s`, message: msg('m1', 1) },
          { chain: `${id}|s`, message: msg('m2', 2) },
          { chain: `${id}|f`, message: msg('m3', 3) },
        ],
        last: new Map([[id, 'done']]),
        finished: [id],
        cursor: '123-4',
      });
      assert.equal(await hooks.schedule('a', s, now), true);
      assert.equal(await hooks.cursor(), '123-4');
      assert.deepEqual(new Set(await hooks.due(now, 10)), new Set([`${id}|s`, `${id}|f`]));
      assert.deepEqual(await hooks.due(now - 1, 10), [], 'due from now, not before');
      assert.deepEqual(await hooks.head(`${id}|s`), msg('m1', 1));
      assert.equal((await hooks.hooked([id])).size, 0, 'finished: off the hooked list');
      assert.equal((await hooks.jobs([id])).get(id)!.last, 'done');
      assert.equal(await hooks.pending(), true, 'deliveries wait');
    });

    test('delivers a chain one message at a time: head, pop (due again at once), then empty and off the due list', async (hooks) => {
      await hooks.lease('a', 10_000);
      const now = Date.now();
      const s = schedule({
        messages: [
          { chain: 'j|s', message: msg('m1') },
          { chain: 'j|s', message: msg('m2') },
        ],
      });
      await hooks.schedule('a', s, now);
      assert.equal((await hooks.head('j|s'))!.id, 'm1');
      await hooks.pop('j|s', now + 5);
      assert.deepEqual(await hooks.due(now + 5, 10), ['j|s']);
      assert.equal((await hooks.head('j|s'))!.id, 'm2');
      await hooks.pop('j|s', now + 6);
      assert.equal(await hooks.head('j|s'), null);
      assert.deepEqual(await hooks.due(now + 10, 10), [], 'an empty chain leaves the due list');
      assert.equal(await hooks.pending(), false);
    });

    test('keeps a retried message at the head with its tries, due later; a new message does not make it due sooner', async (hooks) => {
      await hooks.lease('a', 10_000);
      const now = Date.now();
      await hooks.schedule('a', schedule({ messages: [{ chain: 'j|f', message: msg('m1') }] }), now);
      await hooks.retry('j|f', { ...msg('m1'), tries: 1 }, now + 5_000);
      assert.deepEqual(await hooks.due(now + 4_999, 10), []);
      await hooks.schedule('a', schedule({ messages: [{ chain: 'j|f', message: msg('m2') }] }), now + 1);
      assert.deepEqual(await hooks.due(now + 4_999, 10), [], 'still waiting for the retry');
      assert.deepEqual(await hooks.due(now + 5_000, 10), ['j|f']);
      assert.deepEqual(await hooks.head('j|f'), { ...msg('m1'), tries: 1 });
    });

    test('lists due chains oldest first, at most `limit`', async (hooks) => {
      await hooks.lease('a', 10_000);
      const now = Date.now();
      for (const [i, chain] of ['c|s', 'a|s', 'b|s'].entries())
        await hooks.schedule('a', schedule({ messages: [{ chain, message: msg(chain) }] }), now + i);
      assert.deepEqual(await hooks.due(now + 10, 2), ['c|s', 'a|s']);
      assert.deepEqual(await hooks.due(now + 10, 10), ['c|s', 'a|s', 'b|s'], 'due() takes nothing away');
    });

    test("drops a job's chain of one kind on a 410 and remembers it, leaving the other kind", async (hooks, store) => {
      const id = await enqueue(store);
      await hooks.lease('a', 10_000);
      const now = Date.now();
      const s = schedule({
        messages: [
          { chain: `${id}|s`, message: msg('m1') },
          { chain: `${id}|f`, message: msg('m2') },
        ],
      });
      await hooks.schedule('a', s, now);
      await hooks.disable(id, 's');
      assert.equal(await hooks.head(`${id}|s`), null);
      assert.deepEqual(await hooks.due(now, 10), [`${id}|f`]);
      assert.deepEqual((await hooks.jobs([id])).get(id)!.off, { s: true, f: false });
    });

    test("reads a job's status and finish time for the sweep, and takes listings off on request", async (hooks, store) => {
      const id = await enqueue(store);
      assert.deepEqual(await hooks.finishOf(id), { status: 'queued', finishedAt: null });
      const [c] = await claim(store);
      await store.commit('default', [
        { kind: 'done', id, token: c!.token, output: '1', snapshot: '', log: DONE_LOG },
      ]);
      const f = await hooks.finishOf(id);
      assert.equal(f!.status, 'done');
      assert.equal(typeof f!.finishedAt, 'number');
      assert.equal(await hooks.finishOf('nope'), null);
      await hooks.unhook([id]);
      assert.deepEqual(await hooks.oldestHooked(10), []);
      assert.equal(await hooks.pending(), false);
    });

    test("reads the queue's events after a cursor, waits for the next one, and names the oldest", async (hooks, store) => {
      const id = await enqueue(store);
      const events = await hooks.events('0-0', 10, 0);
      assert.deepEqual(
        events.map((e) => [e.jobId, e.status]),
        [[id, 'queued']],
      );
      assert.equal(await hooks.oldestEvent(), events[0]!.cursor);
      assert.deepEqual(await hooks.events(events[0]!.cursor, 10, 0), [], 'nothing after the last');
      const waiting = hooks.events(events[0]!.cursor, 10, 5_000);
      await sleep(50);
      const next = await enqueue(store);
      assert.deepEqual(
        (await waiting).map((e) => e.jobId),
        [next],
      );
    });
  });
}
