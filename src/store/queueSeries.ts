// QUEUES OVER TIME: per stored queue, one tally per minute of the jobs that ended in it (done,
// failed, cancelled) and two latency histograms of fixed buckets (wait: created to the claim of
// the attempt that ended it; run: that claim to the end). Both stores write a job's tally in the
// same atomic step as its ending (RedisStore: include/lcTally.lua, from lcMove and lcDonePlain;
// MemoryStore: MemoryLifecycle.finish), so nothing is counted twice and nothing is read back
// from the event stream. A minute's tally is kept SERIES_KEEP_MS after its last write.
//
// THE ERROR BOUND: p50 and p95 are estimated from the buckets, interpolated linearly inside the
// bucket that holds the rank. The true quantile lies in that same bucket, so the estimate is off
// by at most the bucket's width: each bound is 10^(1/3) = 2.15 times the one before, so at most
// a factor of 2.15 (e.g. a true p95 of 120 ms reads between 100 and 215 ms). Under 1 ms reads as
// 0..1 ms; over 77 min reads as that bound (SERIES_BOUNDS' last, with `over` set).

import type { Quantiles, QueueSeries, SeriesPoint, SeriesWindow } from './seriesWire.js';

export type { Quantiles, QueueSeries, SeriesPoint, SeriesWindow } from './seriesWire.js';

/**
 * The histograms' upper bounds (ms): 10^(k/3) for k = 0..20, so 1, 2.15, 4.64, 10, 21.5, 46.4,
 * 100, ... 4,641,589 (77 min); a duration falls in the first bucket whose bound is >= it, which
 * is ceil(3 log10(ms)): one log in the Lua, where a search over the bounds cost more than all the
 * rest of a job's tally (bench/probes/commitOps.ts under callgrind).
 */
export const SERIES_BOUNDS: readonly number[] = Array.from({ length: 21 }, (_, k) => 10 ** (k / 3));

/** How many bounds (the Lua needs only this): a duration over the last is in bucket SERIES_BUCKETS. */
export const SERIES_BUCKETS = SERIES_BOUNDS.length;

/** The histograms' field names by bucket: `w<i>` (wait) and `r<i>` (run), i from 0. */
export const SERIES_WAIT_FIELDS = [...SERIES_BOUNDS, 0].map((_, i) => `w${i}`);
export const SERIES_RUN_FIELDS = [...SERIES_BOUNDS, 0].map((_, i) => `r${i}`);

/** A minute's tally is kept this long after its last write: the longest window and two minutes. */
export const SERIES_KEEP_MS = 24 * 3_600_000 + 120_000;

export const SERIES_MINUTE_MS = 60_000;

/** The bucket a duration (ms) falls in: 0..SERIES_BOUNDS.length (the last: over the last bound). */
export function seriesBucket(ms: number): number {
  if (ms <= 1) return 0;
  return Math.min(SERIES_BUCKETS, Math.ceil(3 * Math.log10(ms)));
}

/**
 * One minute's tally as stored: `d`, `f`, `c` (done, failed, cancelled), `w<i>` and `r<i>` (the
 * wait and run histograms' bucket counts; only jobs that were claimed have them).
 */
export type MinuteTally = Record<string, number>;

/** The fields a job's ending adds one to (the Lua twin: include/lcTally.lua). */
export function tallyFields(
  status: string,
  createdAt?: number,
  claimedAt?: number,
  endedAt?: number,
): string[] {
  const field =
    status === 'done' ? 'd' : status === 'failed' ? 'f' : status === 'cancelled' ? 'c' : undefined;
  if (!field) return [];
  if (status === 'cancelled' || claimedAt === undefined || createdAt === undefined || endedAt === undefined)
    return [field];
  return [
    field,
    SERIES_WAIT_FIELDS[seriesBucket(Math.max(0, claimedAt - createdAt))]!,
    SERIES_RUN_FIELDS[seriesBucket(Math.max(0, endedAt - claimedAt))]!,
  ];
}

/** The windows the series route answers, with the width of one point of each. */
export const SERIES_WINDOWS = {
  '15m': { ms: 15 * SERIES_MINUTE_MS, stepMs: SERIES_MINUTE_MS },
  '1h': { ms: 60 * SERIES_MINUTE_MS, stepMs: SERIES_MINUTE_MS },
  '24h': { ms: 24 * 60 * SERIES_MINUTE_MS, stepMs: 15 * SERIES_MINUTE_MS },
} as const satisfies Record<SeriesWindow, { ms: number; stepMs: number }>;

/** The first minute (index: ms / 60,000) of each point of `window` ending at `now`'s minute. */
export function seriesMinutes(
  window: SeriesWindow,
  now: number,
): { first: number; count: number; per: number } {
  const w = SERIES_WINDOWS[window];
  const per = w.stepMs / SERIES_MINUTE_MS;
  const count = w.ms / w.stepMs;
  // The points are aligned to their step, so a 24 h chart's points do not shift every minute.
  const lastPoint = Math.floor(now / w.stepMs) * (w.stepMs / SERIES_MINUTE_MS);
  return { first: lastPoint - (count - 1) * per, count, per };
}

/**
 * The series of `window` from the tallies of its minutes (`tallies[i]` is minute first + i, each
 * the sum over the queue's stored queues; missing minutes are empty).
 */
export function seriesOf(
  queue: string,
  window: SeriesWindow,
  now: number,
  tallies: MinuteTally[],
): QueueSeries {
  const { first, count, per } = seriesMinutes(window, now);
  const points: SeriesPoint[] = [];
  for (let p = 0; p < count; p++) {
    const sum: MinuteTally = {};
    for (let m = p * per; m < (p + 1) * per; m++) addTally(sum, tallies[m]);
    const done = sum.d ?? 0;
    const failed = sum.f ?? 0;
    points.push({
      at: (first + p * per) * SERIES_MINUTE_MS,
      done,
      failed,
      cancelled: sum.c ?? 0,
      failureRate: done + failed > 0 ? failed / (done + failed) : null,
      wait: quantiles(sum, 'w'),
      run: quantiles(sum, 'r'),
    });
  }
  return { queue, window, stepMs: SERIES_WINDOWS[window].stepMs, now, points };
}

/** Adds `b`'s counts into `a`. */
export function addTally(a: MinuteTally, b: MinuteTally | undefined): MinuteTally {
  if (b) for (const [k, v] of Object.entries(b)) a[k] = (a[k] ?? 0) + v;
  return a;
}

function quantiles(t: MinuteTally, prefix: 'w' | 'r'): Quantiles | null {
  const counts = Array.from({ length: SERIES_BOUNDS.length + 1 }, (_, i) => t[`${prefix}${i}`] ?? 0);
  const n = counts.reduce((a, b) => a + b, 0);
  if (n === 0) return null;
  return {
    p50: quantile(counts, n, 0.5),
    p95: quantile(counts, n, 0.95),
    count: n,
    over: counts.at(-1)! > 0 && rankIn(counts, n, 0.95) === SERIES_BOUNDS.length,
  };
}

/** The bucket holding the q-quantile's rank. */
function rankIn(counts: number[], n: number, q: number): number {
  const rank = Math.max(1, Math.ceil(q * n));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return i;
  }
  return counts.length - 1;
}

/** The q-quantile, interpolated linearly inside its bucket (see THE ERROR BOUND). */
export function quantile(counts: number[], n: number, q: number): number {
  const rank = Math.max(1, Math.ceil(q * n));
  const i = rankIn(counts, n, q);
  if (i >= SERIES_BUCKETS) return Math.round(SERIES_BOUNDS.at(-1)!);
  const before = counts.slice(0, i).reduce((a, b) => a + b, 0);
  const lo = i === 0 ? 0 : SERIES_BOUNDS[i - 1]!;
  const hi = SERIES_BOUNDS[i]!;
  return Math.round(lo + ((hi - lo) * (rank - before)) / counts[i]!);
}
