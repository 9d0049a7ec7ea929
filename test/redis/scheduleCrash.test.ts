// Redis only (the killed supervisor is another process, which cannot share a MemoryStore): a
// supervisor SIGKILLed while it fires a schedule loses no tick and doubles none; another
// supervisor takes the schedule over when the killed one's claim lease passes.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { defineJob } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { fixtureEnv, killFixture, spawnFixture } from '../support/spawnFixture.js';
import { ticksIn } from '../../src/client/schedules/scheduleTicks.js';
import { validateSchedule } from '../../src/client/schedules/scheduleSpec.js';

describe('schedule crash', () => {
  let redis: TestRedis;
  let h: Harness;
  let child: ChildProcess | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    killFixture(child);
    await h.close();
  });

  it('loses no tick and doubles none when the supervisor firing it is SIGKILLed', async () => {
    h = new Harness(redis);
    const w = spawnFixture('scheduleWorker.ts', fixtureEnv(redis, h.prefix));
    child = w.child;
    await w.ready;
    const tick = defineJob({ name: 'tick', work: async () => 'ok' });
    const client = h.client({ jobs: [tick] });
    const startAt = (await h.store.now()) + 300;
    const options = {
      everyMs: 200,
      machine: 'tick',
      queue: 'st',
      startAt,
      endAt: startAt + 3000,
      overlap: 'allowAll' as const,
    };
    await client.schedule('crash', options);
    await eventually(() => w.started.size >= 3, 10_000);
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    assert.ok((await client.getSchedule('crash'))!.next !== null, 'killed mid-schedule');

    await h.started({ jobs: [tick], queue: 'st', schedules: { leaseMs: 500 } });
    await eventually(async () => (await client.getSchedule('crash'))!.next === null, 20_000);

    const expected = ticksIn(validateSchedule('crash', options, 'st'), startAt, startAt + 3000, 100).map(
      (t) => `sch.crash.${t}`,
    );
    assert.equal(expected.length, 16);
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.list({ queue: 'st', limit: 100, cursor });
      ids.push(...page.jobs.map((j) => j.id));
      cursor = page.cursor ?? undefined;
    } while (cursor);
    assert.deepEqual(ids.sort(), expected.sort(), 'one job per tick, none lost, none doubled');
  });
});
