// THE EARLY LEASE (lua/include/lcClaimEarly.lua, memory/claimEarly.ts, heldRun.ts): a claim
// also takes parked jobs whose timer is due within the lead, held in the worker's memory until
// it fires. The store's claim first, then a real Supervisor and Client on top.

import assert from 'node:assert/strict';
import { Client, Supervisor } from '../../../src/index.js';
import { pino } from 'pino';
import type { ClaimedJob, Store } from '../../../src/store/types.js';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, enqueueOne, sleep } from './support.js';
import { eventually, runtimeTest } from './runtimeTest.js';
import { TIMED, timedPipeline } from '../../fixtures/earlyLeaseJobs.js';

const FAST = { concurrency: 8, leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 } as const;
/** How early a step may seem to run: the store's clock and this process's agree to a few ms. */
const SKEW_MS = 15;

/** A claim with THE EARLY LEASE's lead and hold. */
async function claimEarly(store: Store, leadMs: number, hold: number, max = 1): Promise<ClaimedJob[]> {
  const res = await store.commit('default', [], {
    workerId: 'w',
    max,
    leaseMs: 1000,
    loadMachines: [],
    leadMs,
    hold,
  });
  return res.claimed;
}

/** A job claimed and parked until `wakeAt` (store clock). */
async function parked(store: Store, wakeAt: number): Promise<string> {
  const id = await enqueueOne(store);
  const [c] = await claim(store);
  await store.commit('default', [
    { kind: 'park', id, token: c!.token, wakeAt, snapshot: '{"w":1}', state: '"sleeping"', log: [] },
  ]);
  return id;
}

export function earlyLeaseCases(factory: StoreFactory): void {
  const test = storeTest(factory);

  test('claims a parked job due within the lead before it is due, leased, last in the reply', async (store) => {
    const now = await store.now();
    const id = await parked(store, now + 800);
    const other = await enqueueOne(store);
    assert.equal((await claimEarly(store, 0, 5, 5)).length, 1, 'lead 0: only the queued job');
    const [held] = await claimEarly(store, 1500, 5, 5);
    assert.equal(held?.id, id);
    assert.ok(held.holdUntil !== undefined && held.holdUntil >= now + 1500, 'held until the window ends');
    assert.equal(held.snapshot, '{"w":1}');
    const rec = (await store.getJob(id))!;
    assert.equal(rec.status, 'working', 'a held job is claimed: working from its early claim');
    assert.deepEqual(await store.heartbeat('default', [{ id, token: held.token }], 1000), ['held']);
    assert.notEqual(other, id);
  });

  test('takes no job beyond the lead, none that is due by a backoff or a delayed enqueue', async (store) => {
    const now = await store.now();
    const far = await parked(store, now + 5_000);
    await enqueueOne(store, { delayMs: 400 });
    const retried = await enqueueOne(store);
    const [c] = await claim(store);
    await store.commit('default', [
      { kind: 'retry', id: retried, token: c!.token, error: '{}', delayMs: 400, attempt: 2, log: [] },
    ]);
    assert.deepEqual(await claimEarly(store, 1000, 10, 10), []);
    assert.equal((await store.getJob(far))?.status, 'waiting');
  });

  test('takes no more than its hold, the earliest due first; the others stay parked', async (store) => {
    const now = await store.now();
    const ids = [
      await parked(store, now + 900),
      await parked(store, now + 700),
      await parked(store, now + 800),
    ];
    const held = await claimEarly(store, 2000, 2, 1);
    assert.deepEqual(held.map((c) => c.id).sort(), [ids[1], ids[2]].sort());
    assert.equal((await store.getJob(ids[0]!))?.status, 'waiting');
  });

  test('a held job whose worker is gone is requeued at its lease end and claimed again', async (store) => {
    const now = await store.now();
    const id = await parked(store, now + 200);
    const [held] = await claimEarly(store, 300, 1);
    assert.equal(held?.id, id);
    // Its lease runs to the window's end and a lease more (1000 ms): not before.
    await sleep(700);
    assert.deepEqual((await store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 })).requeued, []);
    await sleep(800);
    assert.deepEqual((await store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 })).requeued, [id]);
    const [again] = await claim(store);
    assert.equal(again?.id, id);
    assert.equal(again.snapshot, '{"w":1}', 'it resumes from its parked snapshot');
  });

  runtimeEarlyLeaseCases(factory);
}

const timed = timedPipeline();
/** The same pipeline on XState actors: a held run's timers are its actors' (pipeline/heldClock.ts). */
const timedOnActors = timedPipeline(undefined, false);
type Timed = typeof timed;

/** A Supervisor (THE EARLY LEASE's settings over FAST) and a Client on a fresh store, running
 * `def` (the compiled pipeline unless named; XState's cases say so in their names). */
function supervisorTest(
  factory: StoreFactory,
  name: string,
  settings: { leadMs?: number; holdMax?: number },
  fn: (t: { store: Store; client: Client; sup: Supervisor; def: Timed }) => Promise<void>,
  def: Timed = timed,
): void {
  runtimeTest(factory, { ...FAST, ...settings })(
    def === timed ? name : `${name} (XState actors)`,
    [def],
    (t) => fn({ ...t, def }),
  );
}

type Ran = { ranAt: number; poked: boolean };

const status = async (client: Client, id: string) => (await client.get(id))?.status;

/** Waits until the job parked (its first run reached its timer), then until it is held. */
async function heldNow(client: Client, id: string): Promise<void> {
  await eventually(async () => (await status(client, id)) === 'waiting');
  await eventually(async () => (await status(client, id)) === 'working');
}

function runtimeEarlyLeaseCases(factory: StoreFactory): void {
  for (const def of [timed, timedOnActors])
    supervisorTest(
      factory,
      'a held job runs its next step at its due time, not before',
      { leadMs: 1500 },
      async (t) => {
        const at = Date.now() + 2500;
        const id = await t.client.enqueue(TIMED, { at });
        await eventually(async () => (await status(t.client, id)) === 'waiting');
        // Claimed early (its timer within the lead): working while its timer is not due.
        await eventually(async () => (await status(t.client, id)) === 'working');
        assert.ok(Date.now() < at, 'held before its due time');
        const job = await t.client.waitForResult<Ran>(id, { timeoutMs: 8000 });
        assert.equal(job.status, 'done');
        assert.ok(job.output!.ranAt >= at - SKEW_MS, `ran ${at - job.output!.ranAt} ms before its due time`);
        assert.ok(job.output!.ranAt < at + 1000, 'ran at its due time');
        assert.deepEqual(
          (await t.client.events(id))
            .map((e) => e.type)
            .filter((type) => type !== 'state' && type !== 'started'),
          ['enqueued', 'claimed', 'parked', 'claimed', 'resumed', 'done'],
          'parked once, claimed once more (early), resumed, done: no park again, no checkpoint of its own',
        );
      },
      def,
    );

  supervisorTest(factory, 'lead 0: a parked job reads waiting until its timer is due', {}, async (t) => {
    const at = Date.now() + 1200;
    const id = await t.client.enqueue(TIMED, { at });
    await eventually(async () => (await status(t.client, id)) === 'waiting');
    await sleep(at - Date.now() - 300);
    assert.equal(await status(t.client, id), 'waiting');
    const job = await t.client.waitForResult<Ran>(id, { timeoutMs: 8000 });
    assert.ok(job.output!.ranAt >= at - SKEW_MS);
  });

  supervisorTest(
    factory,
    'held jobs over the budget stay parked until due',
    // Margins wide enough for a loaded host: both must have parked before the lead's window
    // opens (at - lead), and the hold must be seen well before `at`.
    { leadMs: 3500, holdMax: 1 },
    async (t) => {
      const at = Date.now() + 6000;
      const ids = [await t.client.enqueue(TIMED, { at }), await t.client.enqueue(TIMED, { at })];
      const statuses = () => Promise.all(ids.map((id) => status(t.client, id)));
      // Each parked once (its first run reached its timer): one may be held before another parks.
      const parked = new Set<string>();
      await eventually(async () => {
        (await statuses()).forEach((s, i) => s === 'waiting' && parked.add(ids[i]!));
        return parked.size === ids.length;
      });
      await eventually(async () => (await statuses()).includes('working'));
      assert.ok(Date.now() < at - 300);
      await sleep(200);
      assert.deepEqual((await Promise.all(ids.map((id) => status(t.client, id)))).sort(), [
        'waiting',
        'working',
      ]);
      for (const id of ids) {
        const job = await t.client.waitForResult<Ran>(id, { timeoutMs: 10_000 });
        assert.ok(job.output!.ranAt >= at - SKEW_MS);
      }
    },
  );

  for (const def of [timed, timedOnActors])
    supervisorTest(
      factory,
      'a cancel of a held job cancels it, its step unrun',
      { leadMs: 1500 },
      async (t) => {
        const at = Date.now() + 2500;
        const id = await t.client.enqueue(TIMED, { at });
        await heldNow(t.client, id);
        assert.equal(await t.client.cancel(id), true);
        const job = await t.client.waitForResult<Ran>(id, { timeoutMs: 8000 });
        assert.equal(job.status, 'cancelled');
        assert.ok(Date.now() < at, 'ended at once, not at its timer');
      },
      def,
    );

  for (const def of [timed, timedOnActors])
    supervisorTest(
      factory,
      'an event sent to a held job is taken, its step at its due time',
      { leadMs: 1500 },
      async (t) => {
        const at = Date.now() + 2500;
        const id = await t.client.enqueue(TIMED, { at });
        await heldNow(t.client, id);
        await t.client.send(id, { type: 'POKE' });
        const job = await t.client.waitForResult<Ran>(id, { timeoutMs: 8000 });
        assert.deepEqual([job.status, job.output!.poked], ['done', true]);
        assert.ok(job.output!.ranAt >= at - SKEW_MS);
      },
      def,
    );

  for (const def of [timed, timedOnActors])
    supervisorTest(
      factory,
      'a stop hands a held job back parked; it runs once, when due',
      { leadMs: 1500 },
      async (t) => {
        const at = Date.now() + 2500;
        const id = await t.client.enqueue(TIMED, { at });
        await heldNow(t.client, id);
        const stopped = await t.sup.stop({ graceMs: 30_000 });
        assert.equal(stopped.forced, false, 'handed back at once, not at the grace period');
        const rec = (await t.client.get(id))!;
        assert.equal(rec.status, 'waiting');
        assert.ok(Math.abs(rec.runAt! - at) < 50, 'parked at its wake time');
        const next = new Supervisor({
          store: t.store,
          jobs: [t.def],
          logger: pino({ level: 'silent' }),
          ...FAST,
        });
        await next.start();
        try {
          const job = await t.client.waitForResult<Ran>(id, { timeoutMs: 8000 });
          assert.ok(job.output!.ranAt >= at - SKEW_MS);
          assert.equal((await t.client.events(id)).filter((e) => e.type === 'done').length, 1);
        } finally {
          await next.stop({ graceMs: 0 });
        }
      },
      def,
    );
}
