// MemoryStore's schedules (roles/Schedules.ts): each one's body and revision, and the due times,
// as the data file keeps them (memorySchedules.ts holds the role's operations on it).

import { ZSet } from './ZSet.js';

/** Every schedule's body and revision, and the due times (absent: paused or ended). */
export class ScheduleTable {
  readonly defs = new Map<string, { body: string; rev: number }>();
  readonly due = new ZSet();

  toJSON(): [string, { body: string; rev: number; dueAt: number | null }][] {
    return [...this.defs].map(([id, d]) => [id, { ...d, dueAt: this.due.score(id) ?? null }]);
  }

  static fromJSON(
    rows: [string, { body: string; rev: number; dueAt: number | null }][] | undefined,
  ): ScheduleTable {
    const t = new ScheduleTable();
    for (const [id, d] of rows ?? []) {
      t.defs.set(id, { body: d.body, rev: d.rev });
      if (d.dueAt !== null) t.due.add(id, d.dueAt);
    }
    return t;
  }
}
