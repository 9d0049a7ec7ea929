// Schedules through the Client and the Supervisor's schedule loop, on both stores: exactly one
// job per tick with two supervisors, trigger and backfill with their overlap policies, tick ids
// on a partitioned queue, and the refusals.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Supervisor, defineJob, type Client } from '../../src/index.js';
import type { Schedules, Store } from '../../src/store/types.js';
import { describeOnEachStore } from '../support/eachStore.js';
import { FAST } from '../support/storeWorld.js';
import { ticksIn } from '../../src/client/schedules/scheduleTicks.js';
import { validateSchedule } from '../../src/client/schedules/scheduleSpec.js';
import { newScheduleRecord } from '../../src/client/schedules/scheduleRecord.js';
import { fnv1a } from '../../src/store/partitions.js';

const tick = defineJob({ name: 'tick', work: async () => 'ok' });

/** Every job id of `queue`, sorted. */
async function jobIds(client: Client, queue: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.list({ queue, limit: 200, cursor });
    ids.push(...page.jobs.map((j) => j.id));
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return ids.sort();
}

/** Resolves once the schedule has no tick left (its next is null), or rejects after `ms`. */
export async function scheduleEnded(client: Client, id: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const s = await client.getSchedule(id);
    if (s && s.next === null && s.buffered.length === 0) return;
    if (Date.now() > until) throw new Error(`schedule ${id} did not end: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describeOnEachStore('schedules', (world) => {
  it('fires every tick exactly once with two supervisors on one store', async () => {
    const h = world();
    const logger = pino({ level: 'silent' });
    const client = h.client({ jobs: [tick] });
    await h.started({ jobs: [tick], schedules: { leaseMs: 500 } });
    // A second supervisor on a store of its own (its own connections) where the backend has one.
    const other = (h as { newStore?: () => Store }).newStore?.() ?? h.store;
    const second = new Supervisor({
      store: other,
      jobs: [tick],
      logger,
      ...FAST,
      schedules: { leaseMs: 500 },
    });
    await second.start();
    try {
      const now = await h.store.now();
      // Far enough ahead that the upsert lands before the first tick on a loaded machine (a tick
      // before the schedule existed is not one of its ticks).
      const startAt = now + 1500;
      // allowAll: on a loaded machine a job may outlast a tick, and skip would then (rightly) skip.
      const options = {
        everyMs: 200,
        machine: 'tick',
        startAt,
        endAt: startAt + 2000,
        overlap: 'allowAll' as const,
      };
      await client.schedule('two', options);
      await scheduleEnded(client, 'two');
      const spec = validateSchedule('two', options, 'default');
      const expected = ticksIn(spec, startAt, startAt + 2000, 100).map((t) => `sch.two.${t}`);
      assert.equal(expected.length, 11);
      assert.deepEqual(await jobIds(client, 'default'), expected.sort());
      const s = await client.getSchedule('two');
      assert.equal(s!.started, 11);
    } finally {
      await second.stop({ graceMs: 0 });
      if (other !== h.store) await other.close();
      await h.close();
    }
  });

  it('fires a schedule stored whole (written before its state was kept apart) and stores it split, its actions kept', async () => {
    const h = world();
    const client = h.client({ jobs: [tick] });
    const store = h.store as Store & Schedules;
    try {
      const now = await h.store.now();
      const startAt = now + 300;
      const options = {
        everyMs: 200,
        machine: 'tick',
        startAt,
        endAt: startAt + 400,
        overlap: 'allowAll' as const,
      };
      const spec = validateSchedule('old', options, 'default');
      const old = { at: 1, what: 'error', detail: 'an action from before' };
      const whole = { ...newScheduleRecord('old', spec, now, startAt), recent: [old] };
      assert.equal(await store.putSchedule('old', JSON.stringify(whole), startAt, 0), 1);
      assert.equal((await client.getSchedule('old'))!.next, startAt, 'read as it was stored');
      await h.started({ jobs: [tick], schedules: { leaseMs: 500 } });
      await scheduleEnded(client, 'old');
      const ticks = [startAt, startAt + 200, startAt + 400].map((t) => `sch.old.${t}`);
      assert.deepEqual(await jobIds(client, 'default'), ticks.sort());
      const s = (await client.getSchedule('old'))!;
      assert.equal(s.started, 3);
      assert.deepEqual(s.recent[0], old, 'the actions from before kept, oldest first');
      assert.deepEqual(
        s.recent.slice(1).map((a) => a.jobId),
        ticks,
      );
      const stored = (await store.getSchedule('old'))!;
      assert.notEqual(stored.state, null, 'stored split now');
      assert.equal(JSON.parse(stored.body).recent, undefined, 'the body holds no actions');
    } finally {
      await h.close();
    }
  });

  it('trigger obeys the overlap policy: skip starts nothing while the last job is unfinished, allowAll starts', async () => {
    const h = world();
    const client = h.client({ jobs: [tick] });
    try {
      await client.schedule('t', { everyMs: 60_000, machine: 'tick', paused: true, note: 'manual only' });
      const first = await client.triggerSchedule('t');
      assert.match(first!, /^sch\.t\.m\d+$/);
      // No supervisor runs: the first job stays queued, so a skip trigger starts nothing.
      assert.equal(await client.triggerSchedule('t'), null);
      const s = await client.getSchedule('t');
      assert.equal(s!.skipped, 1);
      assert.equal(s!.note, 'manual only');
      await client.schedule('t', { everyMs: 60_000, machine: 'tick', overlap: 'allowAll' });
      assert.notEqual(await client.triggerSchedule('t'), null);
    } finally {
      await h.close();
    }
  });

  it('backfill starts one job per tick of the range under the tick ids, and nothing new when repeated', async () => {
    const h = world();
    const client = h.client({ jobs: [tick] });
    try {
      await client.schedule('b', { everyMs: 1000, machine: 'tick', paused: true, queue: 'bq' });
      const ids = await client.backfillSchedule('b', 10_000, 14_000);
      assert.deepEqual(
        ids,
        [10_000, 11_000, 12_000, 13_000, 14_000].map((t) => `sch.b.${t}`),
      );
      await client.backfillSchedule('b', 10_000, 14_000);
      assert.equal((await jobIds(client, 'bq')).length, 5);
      // With skip, only the first tick starts (the others find it unfinished).
      await client.schedule('b2', { everyMs: 1000, machine: 'tick', paused: true, queue: 'bq' });
      assert.deepEqual(await client.backfillSchedule('b2', 1000, 3000, 'skip'), ['sch.b2.1000']);
    } finally {
      await h.close();
    }
  });

  it("puts a schedule's jobs on a partitioned queue in the partition its id names", async () => {
    const h = world();
    const client = h.client({ jobs: [tick] });
    try {
      await client.configureQueue('pq', { partitions: 4 });
      await client.schedule('p', { everyMs: 1000, machine: 'tick', paused: true, queue: 'pq' });
      const [id] = await client.backfillSchedule('p', 5000, 5000);
      assert.equal(id, `${fnv1a('p') % 4}~sch.p.5000`);
      assert.equal((await client.get(id, { queue: 'pq' }))?.id, id);
    } finally {
      await h.close();
    }
  });

  it('refuses an unknown machine and an unknown schedule, and lists, pauses, resumes and removes', async () => {
    const h = world();
    const client = h.client({ jobs: [tick] });
    try {
      await assert.rejects(client.schedule('x', { everyMs: 1000, machine: 'nope' }), {
        code: 'UNKNOWN_MACHINE',
      });
      await assert.rejects(client.pauseSchedule('none'), { code: 'SCHEDULE_NOT_FOUND' });
      await assert.rejects(client.schedule('bad id!', { everyMs: 1000, machine: 'tick' }), {
        code: 'INVALID_INPUT',
      });
      assert.equal(await client.getSchedule('x'), null);
      await client.schedule('c', { cron: '0 3 * * *', timezone: 'Europe/Rome', machine: 'tick' });
      const [c] = await client.schedules();
      assert.equal(c!.nextTicks.length, 5);
      assert.match(c!.text, /03:00/);
      assert.equal((await client.pauseSchedule('c', 'maintenance')).nextTicks.length, 0);
      assert.equal((await client.resumeSchedule('c')).paused, false);
      assert.equal(await client.removeSchedule('c'), true);
      assert.deepEqual(await client.schedules(), []);
    } finally {
      await h.close();
    }
  });
});
