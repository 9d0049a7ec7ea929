// Durable time for pipelines. XState v5 neither persists nor reschedules delayed events (`after`,
// delayed raise/sendTo; statelyai/xstate#5331): a restored actor would wait forever. So the
// runtime reads the actor system's scheduled events when it persists, stores each with its due
// time and the invoke paths of its source and target, and after a restore schedules each again
// with the time that is left, under the same id (so leaving the state still cancels it).

import type { AnyActor, AnyActorRef } from 'xstate';

/** The longest delay setTimeout takes (2^31 - 1 ms, ~24.8 days): Node fires a longer one at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The clock a pipeline's XState actors run on: a delay past setTimeout's range is not armed
 * (Node would fire it at once, with a TimeoutOverflowWarning); it stays scheduled, so it is
 * stored, and the run parks until its due time, which the store wakes it at.
 */
export const timerClock = {
  setTimeout: (fn: (...args: unknown[]) => void, ms: number): NodeJS.Timeout | undefined =>
    ms > MAX_TIMER_MS ? undefined : setTimeout(fn, ms),
  clearTimeout: (id: NodeJS.Timeout | undefined): void => clearTimeout(id),
};

export interface StoredTimer {
  id: string;
  source: string;
  target: string;
  event: unknown;
  dueAt: number;
}

interface ScheduledEvent {
  source: AnyActorRef;
  target: AnyActorRef;
  event: unknown;
  delay: number;
  id: string;
  startedAt: number;
}

interface SystemInternals {
  getSnapshot(): { _scheduledEvents: Record<string, ScheduledEvent> };
  scheduler: {
    schedule(source: AnyActorRef, target: AnyActorRef, event: unknown, delay: number, id: string): void;
  };
}

/** Every actor of the tree by invoke path ('' is the root). */
export function actorsByPath(root: AnyActor): Map<string, AnyActorRef> {
  const out = new Map<string, AnyActorRef>();
  const walk = (ref: AnyActorRef, path: string) => {
    out.set(path, ref);
    const snap = ref.getSnapshot() as { children?: Record<string, AnyActorRef> };
    for (const [id, child] of Object.entries(snap?.children ?? {})) {
      if (child) walk(child, path ? `${path}/${id}` : id);
    }
  };
  walk(root, '');
  return out;
}

/**
 * Due times in Redis time of one run's scheduled events. XState stamps each with the wall clock
 * (`startedAt = Date.now()`), which NTP may step at any time: so each is placed on Redis's clock
 * (`latest`, monotonic and never behind: StoreClock.ts NEVER EARLY) once, when the run first sees
 * it (the same turn of the event loop it was scheduled in), and keeps that due time after.
 */
export class TimerDueTimes {
  private known = new Map<string, { startedAt: number; dueAt: number }>();

  constructor(private readonly latest: () => number) {}

  dueAt(s: { id: string; startedAt: number; delay: number }): number {
    const k = this.known.get(s.id);
    if (k && k.startedAt === s.startedAt) return k.dueAt;
    const dueAt = Math.round(this.latest() + (s.startedAt + s.delay - Date.now()));
    this.known.set(s.id, { startedAt: s.startedAt, dueAt });
    return dueAt;
  }

  /** A restored timer keeps the due time it was stored with (not one recomputed from its delay). */
  restored(s: { id: string; startedAt: number }, dueAt: number): void {
    this.known.set(s.id, { startedAt: s.startedAt, dueAt });
  }

  /** Forgets timers no longer scheduled. */
  keepOnly(ids: Set<string>): void {
    for (const id of this.known.keys()) if (!ids.has(id)) this.known.delete(id);
  }
}

/** The run's scheduled events, with their due times in Redis time. */
export function captureTimers(root: AnyActor, dueTimes: TimerDueTimes): StoredTimer[] {
  const scheduled = Object.values((root.system as unknown as SystemInternals).getSnapshot()._scheduledEvents);
  if (scheduled.length === 0) {
    dueTimes.keepOnly(new Set());
    return [];
  }
  const paths = new Map<AnyActorRef, string>();
  for (const [p, ref] of actorsByPath(root)) paths.set(ref, p);
  const out: StoredTimer[] = [];
  for (const s of scheduled) {
    const source = paths.get(s.source);
    const target = paths.get(s.target);
    if (source === undefined || target === undefined) continue; // an actor outside the tree: not ours to keep
    out.push({ id: s.id, source, target, event: s.event, dueAt: dueTimes.dueAt(s) });
  }
  dueTimes.keepOnly(new Set(scheduled.map((s) => s.id)));
  return out;
}

/**
 * Schedules stored timers on a restored (started) actor; a timer already due fires at once.
 * `now` is Redis time, like the stored due times. Each keeps its stored due time in `dueTimes`
 * (the next capture stores it unchanged: no drift across restores, and a checkpoint of a run
 * that has not moved equals what it was claimed with).
 */
export function restoreTimers(
  root: AnyActor,
  timers: readonly StoredTimer[],
  now: number,
  dueTimes?: TimerDueTimes,
): void {
  if (timers.length === 0) return;
  // The tree is walked only for a timer of a child actor: most are the root's own (`after`).
  let byPath: Map<string, AnyActorRef> | undefined;
  const at = (path: string) => (path === '' ? root : (byPath ??= actorsByPath(root)).get(path));
  const system = root.system as unknown as SystemInternals;
  const dueAtById = new Map<string, number>();
  for (const t of timers) {
    const source = at(t.source);
    const target = at(t.target);
    if (!source || !target) continue;
    system.scheduler.schedule(source, target, t.event, Math.max(0, t.dueAt - now), t.id);
    dueAtById.set(t.id, t.dueAt);
  }
  if (!dueTimes) return;
  for (const s of Object.values(system.getSnapshot()._scheduledEvents)) {
    const dueAt = dueAtById.get(s.id);
    if (dueAt !== undefined) dueTimes.restored(s, dueAt);
  }
}

export function earliestDue(timers: readonly StoredTimer[]): number | null {
  let min: number | null = null;
  for (const t of timers) if (min === null || t.dueAt < min) min = t.dueAt;
  return min;
}

/** A pending timer as the API and the CLI show it. */
export interface PendingTimerView {
  /** The event it sends (`xstate.after.<delay>.<state id>` for an `after`). */
  event: string;
  dueAt: number;
  /** The invoke path of the actor it is sent to, when not the job's machine itself. */
  target?: string;
}

/**
 * The timers a stored pipeline snapshot holds (its `t`), soonest first; none for anything else.
 * The API serves them with the record (its `timers`), which leaves the snapshot out.
 */
export function storedTimersOf(snapshot: unknown): PendingTimerView[] {
  const t = (snapshot as { t?: unknown } | null | undefined)?.t;
  if (!Array.isArray(t)) return [];
  const out: PendingTimerView[] = [];
  for (const x of t as Partial<StoredTimer>[]) {
    if (typeof x?.dueAt !== 'number') continue;
    const type = (x.event as { type?: unknown } | undefined)?.type;
    out.push({
      event: typeof type === 'string' ? type : 'event',
      dueAt: x.dueAt,
      ...(x.target ? { target: x.target } : {}),
    });
  }
  return out.sort((a, b) => a.dueAt - b.dueAt);
}
