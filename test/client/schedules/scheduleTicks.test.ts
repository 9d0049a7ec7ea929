// The pure parts of schedules: tick reckoning (DST included), catch-up, overlap policies, ids,
// and the spec's checks. No store, no waiting.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nextTick, ticksIn, upcomingTicks } from '../../../src/client/schedules/scheduleTicks.js';
import { validateSchedule, type ScheduleSpec } from '../../../src/client/schedules/scheduleSpec.js';
import { dueTicks } from '../../../src/client/schedules/dueTicks.js';
import { planTicks } from '../../../src/client/schedules/planTicks.js';
import type { ScheduleRecord } from '../../../src/client/schedules/scheduleRecord.js';
import { jitterOf, scheduledJobId, scheduledJobInfo } from '../../../src/client/schedules/scheduledJobId.js';
import { describeSchedule } from '../../../src/client/schedules/describeSchedule.js';
import { InvalidScheduleError } from '../../../src/errors.js';

const spec = (o: Partial<Parameters<typeof validateSchedule>[1]>): ScheduleSpec =>
  validateSchedule('s', { machine: 'm', ...o }, 'default');
const iso = (ms: number[]) => ms.map((t) => new Date(t).toISOString());

describe('schedule ticks: DST', () => {
  it('Europe/Rome: a tick in the skipped hour (02:30 on 29 March 2026) runs right after the gap, at 03:00 CEST', () => {
    const s = spec({ cron: '30 2 * * *', timezone: 'Europe/Rome' });
    assert.deepEqual(iso(upcomingTicks(s, Date.parse('2026-03-28T12:00:00Z'), 3)), [
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
      '2026-03-31T00:30:00.000Z',
    ]);
  });

  it('Europe/Rome: a tick in the repeated hour (02:30 on 25 October 2026) runs once', () => {
    const s = spec({ cron: '30 2 * * *', timezone: 'Europe/Rome' });
    const ticks = ticksIn(s, Date.parse('2026-10-24T22:00:00Z'), Date.parse('2026-10-25T04:00:00Z'), 10);
    assert.deepEqual(iso(ticks), ['2026-10-25T00:30:00.000Z']);
  });

  it('America/New_York: 02:30 on 8 March 2026 (skipped) runs at 03:00 EDT; 01:30 on 1 November 2026 (repeated) runs once', () => {
    const spring = spec({ cron: '30 2 * * *', timezone: 'America/New_York' });
    assert.equal(
      new Date(nextTick(spring, Date.parse('2026-03-08T05:00:00Z'))!).toISOString(),
      '2026-03-08T07:00:00.000Z',
    );
    const fall = spec({ cron: '30 1 * * *', timezone: 'America/New_York' });
    const ticks = ticksIn(fall, Date.parse('2026-11-01T04:00:00Z'), Date.parse('2026-11-01T08:00:00Z'), 10);
    assert.deepEqual(iso(ticks), ['2026-11-01T05:30:00.000Z']);
  });

  it('reads a seconds field, and intervals tick in real time aligned to startAt (the epoch by default)', () => {
    assert.deepEqual(upcomingTicks(spec({ cron: '*/5 * * * * *' }), 1000, 3), [5000, 10000, 15000]);
    assert.deepEqual(upcomingTicks(spec({ everyMs: 1000 }), 1500, 3), [2000, 3000, 4000]);
    assert.deepEqual(upcomingTicks(spec({ everyMs: 1000, startAt: 250 }), 0, 2), [250, 1250]);
  });

  it('gives no tick past endAt and none before startAt', () => {
    const s = spec({ everyMs: 1000, startAt: 5000, endAt: 7000 });
    assert.deepEqual(ticksIn(s, 0, 100_000, 100), [5000, 6000, 7000]);
    assert.equal(nextTick(s, 7000), null);
  });
});

function record(s: ScheduleSpec, next: number): ScheduleRecord {
  return {
    id: 's',
    spec: s,
    paused: false,
    note: null,
    next,
    buffered: [],
    lastJob: null,
    recent: [],
    started: 0,
    skipped: 0,
    missed: 0,
    createdAt: 0,
    updatedAt: 0,
  };
}

describe('schedule ticks: catch-up', () => {
  it('runs the missed ticks inside the catch-up window, oldest first, and counts the older ones as missed', () => {
    const s = spec({ everyMs: 1000, catchupWindowMs: 3000 });
    const d = dueTicks(record(s, 1000), 10_500);
    assert.deepEqual(d.fresh, [8000, 9000, 10_000]);
    assert.deepEqual(d.missed, { from: 1000, count: 7, atLeast: false });
    assert.equal(d.next, 11_000);
  });

  it('handles nothing before the next tick is due', () => {
    const d = dueTicks(record(spec({ everyMs: 1000 }), 5000), 4999);
    assert.deepEqual(d, { fresh: [], missed: null, next: 5000 });
  });
});

describe('schedule overlap policies', () => {
  const t = (...at: number[]) => at.map((a) => ({ at: a }));
  it('skip: starts the first tick while nothing runs, skips the rest', () => {
    assert.deepEqual(planTicks('skip', [], t(1, 2), false), {
      start: t(1),
      skip: t(2),
      hold: [],
      cancelPrevious: false,
    });
    assert.deepEqual(planTicks('skip', [], t(1), true).skip, t(1));
  });
  it('bufferOne holds one and skips later ones; bufferAll holds all', () => {
    assert.deepEqual(planTicks('bufferOne', [], t(1, 2), true), {
      start: [],
      skip: t(2),
      hold: t(1),
      cancelPrevious: false,
    });
    assert.deepEqual(planTicks('bufferAll', [], t(1, 2), true).hold, t(1, 2));
    assert.deepEqual(planTicks('bufferAll', t(1), t(2), false), {
      start: t(1),
      skip: [],
      hold: t(2),
      cancelPrevious: false,
    });
  });
  it('cancelOther cancels the running job and starts the newest tick; allowAll starts every tick', () => {
    assert.deepEqual(planTicks('cancelOther', [], t(1, 2), true), {
      start: t(2),
      skip: t(1),
      hold: [],
      cancelPrevious: true,
    });
    assert.deepEqual(planTicks('allowAll', [], t(1, 2), true).start, t(1, 2));
  });
});

describe('schedule ids and checks', () => {
  it("makes a tick's job id from the schedule and the tick, naming the partition, and reads it back", () => {
    assert.equal(scheduledJobId('nightly', 1000, false), 'sch.nightly.1000');
    assert.equal(scheduledJobId('a.b', 1000, true, 3), '3~sch.a.b.m1000');
    assert.deepEqual(scheduledJobInfo('3~sch.a.b.m1000'), { scheduleId: 'a.b', at: 1000, manual: true });
    assert.equal(scheduledJobInfo('01HX'), null);
  });

  it('jitters a tick by a stable amount below jitterMs', () => {
    const j = jitterOf('s', 5000, 700);
    assert.ok(j >= 0 && j < 700);
    assert.equal(jitterOf('s', 5000, 700), j);
    assert.equal(jitterOf('s', 5000, 0), 0);
  });

  it('refuses a bad cron, an unknown time zone, a short everyMs, endAt before startAt, both cron and everyMs', () => {
    const field = (o: Parameters<typeof spec>[0]) => {
      try {
        spec(o);
      } catch (err) {
        assert.ok(err instanceof InvalidScheduleError);
        assert.equal(err.code, 'INVALID_SCHEDULE');
        return err.field;
      }
      return 'accepted';
    };
    assert.equal(field({ cron: '61 * * * *' }), 'cron');
    assert.equal(field({ cron: '* * * * *', timezone: 'Mars/Olympus' }), 'timezone');
    assert.equal(field({ everyMs: 10 }), 'everyMs');
    assert.equal(field({ everyMs: 1000, startAt: 5000, endAt: 10 }), 'endAt');
    assert.equal(field({ everyMs: 1000, cron: '* * * * *' }), 'cron');
    assert.equal(field({ everyMs: 1000, overlap: 'sometimes' as never }), 'overlap');
  });

  it('says a schedule in words', () => {
    assert.equal(describeSchedule(spec({ everyMs: 5000 })), 'Every 5 seconds');
    assert.match(
      describeSchedule(spec({ cron: '30 2 * * *', timezone: 'Europe/Rome' })),
      /02:30.*Europe\/Rome/,
    );
  });
});
