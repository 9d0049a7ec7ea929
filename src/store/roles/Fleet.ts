// ROLE Fleet (optional): the supervisors at work, as each says at every heartbeat (`announce`),
// and the jobs the reaper took back from each one that stopped heartbeating (reap-7.lua and
// MemoryStore's reap record the lease's worker: a token is '<workerId>:<n>'). GET /workers,
// `machinist workers` and the dashboard's workers page read it. Both stores have it; callers ask
// with the guard below.

/** What a supervisor says of itself at each heartbeat (supervisor/FleetPresence.ts). */
export interface WorkerFacts {
  workerId: string;
  host: string;
  pid: number;
  /** The machinist package's version the supervisor runs. */
  version: string;
  queues: string[];
  concurrency: number;
  /** Jobs running now. */
  runningCount: number;
  /** What it is running (the first RUNNING_LISTED of them). */
  running: { id: string; queue: string; machine: string | null }[];
  startedAt: number;
  /** With no announce for this long (ms), the supervisor is gone. */
  goneAfterMs: number;
  /** Set by the announce of a supervisor's clean stop. */
  stopped?: boolean;
}

/** A job the reaper took back from a worker whose lease passed. */
export interface ReapedJob {
  id: string;
  queue: string;
  /** `requeued`, or `failed` past its lease-requeue budget. */
  outcome: 'requeued' | 'failed';
  at: number;
}

export interface FleetWorker extends WorkerFacts {
  /** live: announcing; stopped: stopped cleanly; gone: stopped announcing (killed, cut off). */
  status: 'live' | 'stopped' | 'gone';
  /** Store time of its last announce, and ms since (store clock). */
  seenAt: number;
  heartbeatAgeMs: number;
  /** Jobs the reaper took back from it (REAPED_KEPT_MS at most), newest first. */
  reaped: ReapedJob[];
}

export const RUNNING_LISTED = 50;

export interface Fleet {
  /** Records the supervisor's facts, seen now (store clock); forgets supervisors gone long ago. */
  announce(facts: WorkerFacts): Promise<void>;
  /** Every supervisor seen within FLEET_GONE_KEPT_MS, live first, then by id. */
  workers(): Promise<FleetWorker[]>;
}

export function hasFleet<S extends object>(store: S): store is S & Fleet {
  return typeof (store as Partial<Fleet>).workers === 'function';
}
