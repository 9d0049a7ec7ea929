// The shapes the dashboard reads from the server (the API's and its own JSON routes). Kept here
// rather than imported from the server's source: this code is compiled for the browser alone.

export interface Job {
  id: string;
  queue: string;
  machine: string;
  version: number;
  status: string;
  state: unknown;
  context: unknown;
  input: unknown;
  output: unknown;
  error: unknown;
  attempts: number;
  maxAttempts: number;
  priority: string;
  progress: unknown;
  parentId: string | null;
  runAt: number | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  cancelRequested: boolean;
  children?: { total: number; finished: number; jobs: { id: string; queue: string; status: string }[] };
}

export interface AuditEntry {
  at: number;
  type: string;
  state?: unknown;
  event?: string;
  [key: string]: unknown;
}

/** What the chart shows of one job at one point of its log. */
export interface Marks {
  /** Full XState ids of the active states (ancestors included, the root left out). */
  active: string[];
  /** Where a cancelled or failed pipeline ended (it runs there no more), and why. */
  stopped: string[];
  ended?: string;
  /** Times each state was entered, by full id. */
  visits: Record<string, number>;
  /** Times each transition was taken, by the graph edge's id (`job.working:3`). */
  edgeVisits: Record<string, number>;
}

export interface Timer {
  kind: 'after' | 'retry' | 'delayed';
  event: string;
  stateId?: string;
  delay?: string;
  dueAt: number;
}

/** A job as its page shows it: the dashboard's jobs/:id/view route (dashboard/jobPageView.ts). */
export interface JobPageView {
  job: Job;
  log: AuditEntry[];
  /** The log entry the marks and context are as of (null: now). */
  at: number | null;
  /** Null when the job's machine has no chart (a simple job without a definition). */
  marks: Marks | null;
  /** The events the current state accepts (its own and its ancestors'), by type. */
  next: string[];
  timers: Timer[];
  /** The context as it was after entry `at`, when known. */
  contextAt: unknown;
  /** Redis's clock when the view was read: countdowns are drawn against it. */
  now: number;
  chart: { machine: string; version: number } | null;
  /** XState machines its states invoke (`key`: `<state id>:<invoke id>`), lit while running. */
  invoked: { key: string; state: string; invoke: string; src: string; active: string[] | null }[];
  readOnly: boolean;
}

export interface QueueOverview {
  queue: string;
  counts: Record<string, number>;
  minutes: { at: number; done: number; failed: number }[];
  partial: boolean;
  heldSince: number | null;
  capped: boolean;
}

export interface Config {
  readOnly: boolean;
  title: string;
}

export interface HeatState {
  count: number;
  p50: number | null;
  p95: number | null;
}

export interface Heat {
  machine: string;
  version: number;
  states: Record<string, HeatState>;
  /** Jobs whose logs the dwell times were read from. */
  sampled: number;
}

/** What changed between two versions of a machine (the dashboard's machines/:name/diff route). */
export interface ChartDiff {
  machine: string;
  from: number;
  to: number;
  added: string[];
  removed: string[];
  renamed: { from: string; to: string }[];
  kept: string[];
}

/** One concurrency key's use, as GET /queues/:queue/limits answers it. */
export interface KeyUse {
  key: string;
  running: number;
  /** Jobs waiting in the key's line (key full, over its rate, or paused). */
  waiting: number;
  /** The key is paused (Client.pauseKey): its jobs wait, the others run. */
  paused?: true;
}

/** A queue's flow gate and its use: GET /queues/:queue/limits (docs/flow-control.md). */
export interface QueueFlowView {
  queue: string;
  paused: boolean;
  limits: {
    total?: number;
    perKey?: number;
    strategy?: string;
    rateLimit?: { limit: number; perMs: number; burst?: number; mode?: string };
    keyRateLimit?: { limit: number; perMs: number; burst?: number; mode?: string };
    /** Each throttled machine's own throttle, by machine name. */
    machineRateLimits?: Record<string, { limit: number; perMs: number; burst?: number; mode?: string }>;
  };
  /** Loading and working jobs, every partition summed. */
  running: number;
  keys: KeyUse[];
  /** When the throttle next lets a job start, if later than now (absent: one may start now). */
  throttledUntil?: number;
}

/** GET /queues/:queue/series: the server's own types (src/store/seriesWire.ts). */
export type { Quantiles, QueueSeries, SeriesPoint, SeriesWindow } from '../../store/seriesWire.js';

/** A supervisor as GET /workers answers it (roles/Fleet.ts). */
export interface FleetWorker {
  workerId: string;
  status: 'live' | 'stopped' | 'gone';
  host: string;
  pid: number;
  version: string;
  queues: string[];
  concurrency: number;
  runningCount: number;
  running: { id: string; queue: string; machine: string | null }[];
  startedAt: number;
  seenAt: number;
  heartbeatAgeMs: number;
  goneAfterMs: number;
  reaped: { id: string; queue: string; outcome: 'requeued' | 'failed'; at: number }[];
}

/** A page of GET /jobs/search. */
export interface SearchPage {
  jobs: Job[];
  cursor: string | null;
  scanned: number;
}
