// MemoryStore's schedules (roles/Schedules.ts): each one's body, state, recent actions and
// revision, and the due times, as the data file keeps them (memorySchedules.ts holds the role's
// operations on it). A data file written before the split has no state and recent: read as null
// and [] (the body is then the whole schedule).

import { ZSet } from './ZSet.js';

export interface ScheduleRow {
  body: string;
  rev: number;
  state: string | null;
  recent: string[];
}

/** Every schedule's parts and revision, and the due times (absent: paused or ended). */
export class ScheduleTable {
  readonly defs = new Map<string, ScheduleRow>();
  readonly due = new ZSet();

  toJSON(): [string, ScheduleRow & { dueAt: number | null }][] {
    return [...this.defs].map(([id, d]) => [id, { ...d, dueAt: this.due.score(id) ?? null }]);
  }

  static fromJSON(
    rows: [string, Partial<ScheduleRow> & { body: string; rev: number; dueAt: number | null }][] | undefined,
  ): ScheduleTable {
    const t = new ScheduleTable();
    for (const [id, d] of rows ?? []) {
      t.defs.set(id, { body: d.body, rev: d.rev, state: d.state ?? null, recent: d.recent ?? [] });
      if (d.dueAt !== null) t.due.add(id, d.dueAt);
    }
    return t;
  }
}
