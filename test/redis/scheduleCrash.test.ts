// Redis only (the killed supervisor is another process, which cannot share a MemoryStore): a
// supervisor SIGKILLed while it fires a schedule loses no tick and doubles none; another
// supervisor takes the schedule over when the killed one's claim lease passes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { fixtureSuite } from '../support/spawnFixture.js';
import { ticksIn } from '../../src/client/schedules/scheduleTicks.js';
import { validateSchedule } from '../../src/client/schedules/scheduleSpec.js';

describe('schedule crash', () => {
  const suite = fixtureSuite();

  it('loses no tick and doubles none when the supervisor firing it is SIGKILLed', async () => {
    const { h, w } = await suite.spawn('scheduleWorker.ts');
    const tick = defineJob({ name: 'tick', work: async () => 'ok' });
    const client = h.client({ jobs: [tick] });
    // Ahead of the upsert on a loaded machine: a tick before the schedule existed is not one of its.
    const startAt = (await h.store.now()) + 1500;
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
    await w.sigkill();
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
