// The Client's schedule methods (Client.ts delegates to these): create or update, read, pause,
// resume, remove, trigger and backfill schedules (docs/schedules.md). Every change is a
// read-modify-write by compare-and-set on the schedule's revision (roles/Schedules.ts), tried
// again when a supervisor or another client wrote in between.

import { InvalidScheduleError, MachinistError, ScheduleConflictError } from '../../errors.js';
import { CODE } from '../../errorCodes.js';
import { hasSchedules, type Schedules, type Store } from '../../store/types.js';
import { buildNewJob } from '../buildNewJob.js';
import type { MachineFactsLookup } from '../MachineFactsLookup.js';
import type { QueueRouter } from '../QueueRouter.js';
import { ScheduleFirer } from './ScheduleFirer.js';
import { describeSchedule } from './describeSchedule.js';
import { decodeRecord, newScheduleRecord, writeOf, type ScheduleRecord } from './scheduleRecord.js';
import { UPDATE_TRIES, updateSchedule } from './updateSchedule.js';
import {
  assertScheduleId,
  sameTiming,
  validateSchedule,
  type OverlapPolicy,
  OVERLAP_POLICIES,
  type ScheduleOptions,
  type TimeInput,
} from './scheduleSpec.js';
import { nextTick, ticksIn, upcomingTicks } from './scheduleTicks.js';

/** A schedule as the client shows it: its record, in words, and its next ticks. */
export interface ScheduleInfo extends ScheduleRecord {
  /** The schedule in words (cronstrue). */
  text: string;
  /** The next ticks (up to 5; none while paused). */
  nextTicks: number[];
}

/** Most ticks one backfill starts: a larger range is split by the caller. */
export const MAX_BACKFILL_TICKS = 10_000;

export interface ScheduleClientHost {
  store: Store;
  facts: MachineFactsLookup;
  router: QueueRouter;
  defaultQueue: string;
  maxPayloadBytes: number;
}

export class ScheduleClient {
  private readonly firer: ScheduleFirer;

  constructor(private readonly host: ScheduleClientHost) {
    this.firer = new ScheduleFirer(host);
  }

  private get store(): Store & Schedules {
    const s = this.host.store;
    if (!hasSchedules(s))
      throw new MachinistError(
        CODE.INVALID_INPUT,
        'this store keeps no schedules (it lacks the Schedules role)',
      );
    return s;
  }

  /** Creates schedule `id`, or updates it (an upsert); see Client.schedule. */
  async upsert(id: string, options: ScheduleOptions): Promise<ScheduleInfo> {
    const spec = validateSchedule(id, options, this.host.defaultQueue);
    if (options.note !== undefined && typeof options.note !== 'string')
      throw new InvalidScheduleError(id, 'note', 'must be a text');
    // The machine must be known and the input fit it, now rather than at each tick.
    const facts = await this.host.facts.machineInfo(spec.machine);
    await buildNewJob(spec.machine, spec.input, {}, facts, {
      queue: spec.queue,
      maxPayloadBytes: this.host.maxPayloadBytes,
    });
    const store = this.store;
    for (let i = 0; i < UPDATE_TRIES; i++) {
      const [stored, now] = await Promise.all([store.getSchedule(id), store.now()]);
      let r: ScheduleRecord;
      if (!stored) {
        r = newScheduleRecord(id, spec, now, nextTick(spec, now), options);
      } else {
        r = decodeRecord(stored);
        // New timing, or a resume by update: ticks from now on (as resumeSchedule).
        if (!sameTiming(r.spec, spec) || (r.paused && options.paused === false)) r.next = nextTick(spec, now);
        r.spec = spec;
        if (options.paused !== undefined) r.paused = options.paused;
        if (options.note !== undefined) r.note = options.note;
        r.updatedAt = now;
      }
      if ((await this.put(r, now, stored ? stored.rev : 0)) !== null) return this.info(r, now);
    }
    throw new ScheduleConflictError(id, UPDATE_TRIES);
  }

  async list(): Promise<ScheduleInfo[]> {
    const store = this.store;
    const [all, now] = await Promise.all([store.listSchedules(), store.now()]);
    return all.map((s) => this.info(decodeRecord(s), now));
  }

  async get(id: string): Promise<ScheduleInfo | null> {
    assertScheduleId(id);
    const store = this.store;
    const [s, now] = await Promise.all([store.getSchedule(id), store.now()]);
    return s ? this.info(decodeRecord(s), now) : null;
  }

  pause(id: string, note?: string): Promise<ScheduleInfo> {
    if (note !== undefined && typeof note !== 'string')
      throw new InvalidScheduleError(id, 'note', 'must be a text');
    return this.update(id, (r) => {
      r.paused = true;
      r.note = note ?? r.note;
    });
  }

  /** Ticks that fell while it was paused are not run (as Temporal's unpause): the next is after now. */
  resume(id: string): Promise<ScheduleInfo> {
    return this.update(id, (r, now) => {
      if (!r.paused) return;
      r.paused = false;
      r.note = null;
      r.next = nextTick(r.spec, now);
    });
  }

  async remove(id: string): Promise<boolean> {
    assertScheduleId(id);
    return this.store.removeSchedule(id);
  }

  /**
   * Starts one run now, as a tick at the store's time would (obeying the overlap policy; with
   * skip and the previous job unfinished, nothing starts). Resolves with the job id, or null.
   */
  async trigger(id: string): Promise<string | null> {
    const at = await this.store.now();
    let started: string[] = [];
    await this.update(id, async (r) => {
      started = await this.firer.fire(r, [{ at, manual: true }], at, r.spec.overlap, false);
    });
    return started[0] ?? null;
  }

  /**
   * Starts the ticks of [from, to] under `overlap` (default allowAll), with the tick ids the
   * schedule itself uses: a tick that already ran (its record retained) starts nothing new.
   * Resolves with the ids of the jobs started.
   */
  async backfill(
    id: string,
    from: TimeInput,
    to: TimeInput,
    overlap: OverlapPolicy = 'allowAll',
  ): Promise<string[]> {
    const f = toMs(id, 'from', from);
    const t = toMs(id, 'to', to);
    if (t < f) throw new InvalidScheduleError(id, 'to', 'is before from');
    if (!OVERLAP_POLICIES.includes(overlap))
      throw new InvalidScheduleError(id, 'overlap', `must be one of ${OVERLAP_POLICIES.join(', ')}`);
    let started: string[] = [];
    await this.update(id, async (r, now) => {
      const ticks = ticksIn(r.spec, f, Math.min(t, now), MAX_BACKFILL_TICKS + 1);
      if (ticks.length > MAX_BACKFILL_TICKS)
        throw new InvalidScheduleError(
          id,
          'to',
          `gives more than ${MAX_BACKFILL_TICKS} ticks: backfill a shorter range`,
        );
      started = await this.firer.fire(
        r,
        ticks.map((at) => ({ at })),
        now,
        overlap,
        false,
      );
    });
    return started;
  }

  private async update(
    id: string,
    change: (r: ScheduleRecord, now: number) => void | Promise<void>,
  ): Promise<ScheduleInfo> {
    assertScheduleId(id);
    const { r, now } = await updateSchedule(this.store, id, change);
    return this.info(r, now);
  }

  /** Writes `r` whole (body, state, the actions noted) if its revision is still `expectedRev`. */
  private put(r: ScheduleRecord, now: number, expectedRev: number): Promise<number | null> {
    const w = writeOf(r, now, expectedRev, true);
    return this.store.putSchedule(r.id, w.body!, w.dueAt, expectedRev, false, w.part);
  }

  private info(r: ScheduleRecord, now: number): ScheduleInfo {
    void now;
    const ticks = r.paused || r.next === null ? [] : [r.next, ...upcomingTicks(r.spec, r.next, 4)];
    return { ...r, text: describeSchedule(r.spec), nextTicks: ticks };
  }
}

function toMs(id: string, field: string, v: TimeInput): number {
  const ms = v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : v;
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw new InvalidScheduleError(id, field, 'must be a time (ms since epoch, a Date or an ISO 8601 text)');
  return ms;
}
