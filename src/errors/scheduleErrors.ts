// A schedule that cannot be run as given, is not there, or kept changing under a write. Each
// carries the schedule's id (`scheduleId`) besides the ids every MachinistError has.

import { CODE } from '../errorCodes.js';
import { type ErrorIds, MachinistError } from './MachinistError.js';

/** A schedule's spec refused before anything was written; `field` names what is wrong. */
export class InvalidScheduleError extends MachinistError {
  readonly scheduleId: string;
  constructor(scheduleId: string, field: string, message: string, ids: ErrorIds = {}) {
    super(CODE.INVALID_SCHEDULE, `schedule '${scheduleId}': ${field} ${message}`, { ...ids, field });
    this.scheduleId = scheduleId;
  }
}

export class ScheduleNotFoundError extends MachinistError {
  readonly scheduleId: string;
  constructor(scheduleId: string) {
    super(CODE.SCHEDULE_NOT_FOUND, `schedule '${scheduleId}' does not exist`);
    this.scheduleId = scheduleId;
  }
}

/** Every try of a read-modify-write lost to another writer (a supervisor advancing it, a client). */
export class ScheduleConflictError extends MachinistError {
  readonly scheduleId: string;
  constructor(scheduleId: string, tries: number) {
    super(
      CODE.SCHEDULE_CONFLICT,
      `schedule '${scheduleId}' changed under each of ${tries} tries to write it; try again`,
    );
    this.scheduleId = scheduleId;
  }
}
