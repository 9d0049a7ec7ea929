// When a schedule's ticks fall: pure functions of its spec and a time, so that every supervisor
// reckons the same ticks, and tests check them (DST included) without waiting.
//
// DST (croner follows ISC cron / OCPS 1.4): a tick whose wall time falls in a skipped hour
// (spring forward) runs right after the gap; a tick at a fixed wall time in a repeated hour
// (fall back) runs once, at its first occurrence. A pattern with wildcard hours or minutes
// ticks in real time through both. Intervals (`everyMs`) are real time: no DST at all.

import { Cron } from 'croner';
import type { ScheduleSpec } from './scheduleSpec.js';

/** Parsed patterns by pattern and zone: a claim reckons ticks for many schedules. */
const patterns = new Map<string, Cron>();

function cronOf(pattern: string, timezone: string): Cron {
  const key = `${timezone} ${pattern}`;
  let c = patterns.get(key);
  if (!c) {
    if (patterns.size > 10_000) patterns.clear();
    patterns.set(key, (c = new Cron(pattern, { timezone })));
  }
  return c;
}

/** The first tick strictly after `after` (ms), or null when there is none (past endAt). */
export function nextTick(spec: ScheduleSpec, after: number): number | null {
  const from = spec.startAt !== undefined ? Math.max(after, spec.startAt - 1) : after;
  let t: number | null;
  if (spec.everyMs !== undefined) {
    const anchor = spec.startAt ?? 0;
    t = from < anchor ? anchor : anchor + (Math.floor((from - anchor) / spec.everyMs) + 1) * spec.everyMs;
  } else {
    const d = cronOf(spec.cron!, spec.timezone).nextRun(new Date(from));
    t = d ? d.getTime() : null;
  }
  if (t === null || (spec.endAt !== undefined && t > spec.endAt)) return null;
  return t;
}

/** The ticks in [from, to] (ms), oldest first, `max` at most. */
export function ticksIn(spec: ScheduleSpec, from: number, to: number, max: number): number[] {
  const out: number[] = [];
  for (let t = nextTick(spec, from - 1); t !== null && t <= to && out.length < max; t = nextTick(spec, t))
    out.push(t);
  return out;
}

/** The next `n` ticks after `after`. */
export function upcomingTicks(spec: ScheduleSpec, after: number, n: number): number[] {
  const out: number[] = [];
  for (let t = nextTick(spec, after); t !== null && out.length < n; t = nextTick(spec, t)) out.push(t);
  return out;
}
