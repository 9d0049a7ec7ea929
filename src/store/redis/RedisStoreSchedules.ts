// RedisStore's Schedules role (roles/Schedules.ts; scheduleOps.ts): the stored schedules, their
// writes, reads and the schedule loop's claims. Between RedisStoreRegistry and RedisStore (the
// other roles), as RedisStoreRegistry holds the Registry role.

import type { ScheduleClaim, ScheduleWrite, ScheduleStatePart, Schedules, StoredSchedule } from '../types.js';
import { RedisStoreRegistry } from './RedisStoreRegistry.js';
import * as scheduleOps from './scheduleOps.js';

/** Schedules whose recent actions one call of listSchedules reads. */
const RECENT_SLICE = 500;

export class RedisStoreSchedules extends RedisStoreRegistry implements Schedules {
  // Schedules (roles/Schedules.ts; scheduleOps.ts): a client's calls are bounded, the loop's claim
  // and its advancing writes (`patient`) wait out an outage like a supervisor's other calls.

  /** A compare-and-set: not sent again once it may have reached Redis (a resend would read its own write as a conflict). */
  putSchedule(
    id: string,
    body: string,
    dueAt: number | null,
    expectedRev?: number,
    fromLoop = false,
    part?: ScheduleStatePart,
  ): Promise<number | null> {
    if (fromLoop) return scheduleOps.putSchedule(this.ctx, id, body, dueAt, expectedRev, part);
    return this.calls.call(
      'putSchedule',
      (c) => scheduleOps.putSchedule(c, id, body, dueAt, expectedRev, part),
      {
        writes: true,
        resend: 'if-unsent',
      },
    );
  }

  /** The schedule loop's: waits out an outage like a supervisor's other calls. */
  putSchedules(writes: ScheduleWrite[]): Promise<(number | null)[]> {
    return scheduleOps.putSchedules(this.ctx, writes);
  }

  getSchedule(id: string): Promise<StoredSchedule | null> {
    return this.calls.call('getSchedule', (c) => scheduleOps.getSchedule(c, id));
  }

  /** The schedules in one read, then their recent actions in slices, each slice a bounded call of its own. */
  async listSchedules(): Promise<StoredSchedule[]> {
    const all = await this.calls.call('listSchedules', (c) => scheduleOps.listSchedules(c));
    for (let i = 0; i < all.length; i += RECENT_SLICE) {
      const slice = all.slice(i, i + RECENT_SLICE);
      const recent = await this.calls.call('listSchedules', (c) =>
        scheduleOps.recentOf(
          c,
          slice.map((s) => s.id),
        ),
      );
      slice.forEach((s, k) => (s.recent = recent[k] ?? []));
    }
    return all;
  }

  removeSchedule(id: string): Promise<boolean> {
    return this.calls.call('removeSchedule', (c) => scheduleOps.removeSchedule(c, id), { writes: true });
  }

  claimSchedules(max: number, leaseMs: number): Promise<ScheduleClaim> {
    return scheduleOps.claimSchedules(this.ctx, max, leaseMs);
  }

  wakeSchedules(ids: string[]): Promise<number> {
    return scheduleOps.wakeSchedules(this.ctx, ids);
  }
}
