// What GET /queues/:queue/series answers (src/store/queueSeries.ts builds it), as types alone.
// The dashboard's browser build compiles this file too (src/dashboard/browser/tsconfig.json
// includes it), so the server and the page read one definition: it imports nothing and holds
// no values, which keeps it fit for both builds.

/** The windows the series route answers (queueSeries.ts's SERIES_WINDOWS gives their widths). */
export type SeriesWindow = '15m' | '1h' | '24h';

/** A latency estimate over a point's jobs: null when none was claimed in it. */
export interface Quantiles {
  p50: number;
  p95: number;
  /** How many durations the estimate is over. */
  count: number;
  /** True when p95 is over the last bound (an hour): the value is that bound. */
  over: boolean;
}

export interface SeriesPoint {
  /** The point's start (ms since epoch, the store's clock); it covers `stepMs`. */
  at: number;
  done: number;
  failed: number;
  cancelled: number;
  /** failed / (done + failed), or null when none ended. */
  failureRate: number | null;
  wait: Quantiles | null;
  run: Quantiles | null;
}

export interface QueueSeries {
  queue: string;
  window: SeriesWindow;
  stepMs: number;
  now: number;
  /** Oldest first, the last one holding the current minute. */
  points: SeriesPoint[];
}
