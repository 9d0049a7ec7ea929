// Shared by the bench orchestrator (run.ts) and its worker processes (worker.ts).

export type SystemName = 'machinist' | 'bullmq';

/** What the orchestrator passes to a worker process (as JSON in argv[2]). */
export interface WorkerConfig {
  system: SystemName;
  host: string;
  port: number;
  /** Workload 10: the seeds of a Redis Cluster to connect to instead of host:port. */
  cluster?: { host: string; port: number }[];
  /** Workload 10: the queues one worker serves (a partitioned queue's name serves its
   * partitions); default [QUEUE]. BullMQ runs one Worker per queue, its prefix `{queue}`. */
  queues?: string[];
  concurrency: number;
  /** What the worker runs: no-op jobs (default), the 3-step pipeline (6) or fan-out flows (7). */
  mode?: 'noop' | 'pipeline' | 'fan';
  /** Write a V8 CPU profile of the measured window (go -> stop) to this file. */
  cpuProfile?: string;
  /**
   * Workload 9: report heapUsed after a full GC every `heapEvery` jobs (the worker runs with
   * --expose-gc); finished records are swept after 2 s so Redis stays small over millions of jobs.
   */
  heapEvery?: number;
  /**
   * Workloads 12-14 (flow control): report each job's start and end (`job` messages, the
   * worker's Date.now() when its handler began and ended, and the input's `key`), the job
   * sleeping `jobMs` first when set.
   */
  record?: { jobMs?: number };
  /** BullMQ's Worker rate limiter (workloads 12, 13); Machinist's throttle is set on the queue. */
  limiter?: { max: number; duration: number };
  /** Workload 15: Machinist's early lease (SupervisorOptions.leadMs, holdMax). */
  early?: { leadMs: number; holdMax: number };
}

/** Parent -> worker. */
export type ToWorker = { cmd: 'go' } | { cmd: 'stop' };

/** Worker -> parent. */
export type FromWorker =
  | { type: 'ready' }
  | {
      type: 'stats';
      /** CPU time of the whole worker process between go and stop, microseconds. */
      cpuUs: number;
      /** Peak resident set size of the worker process, bytes. */
      maxRssBytes: number;
    }
  | {
      type: 'heap';
      /** Jobs this worker had run when the sample was taken. */
      jobs: number;
      /** `process.memoryUsage().heapUsed` right after `global.gc()`. */
      heapUsedBytes: number;
    }
  | {
      type: 'job';
      /** The worker's clock (Date.now()) when the handler began and ended. */
      start: number;
      end: number;
      /** The job input's `key` (its concurrency key on Machinist's side). */
      key?: string;
    };

// Names shared by both sides.
export const QUEUE = 'bench';
export const MACHINIST_PREFIX = 'mb';
/** Machinist's index of done jobs (see src/store/keys.ts). */
export const MACHINIST_DONE_KEY = `${MACHINIST_PREFIX}:{${QUEUE}}:done`;
/** Machinist's index of jobs due now (workload 9 keeps it short while it feeds the worker). */
export const MACHINIST_QUEUED_KEY = `${MACHINIST_PREFIX}:{${QUEUE}}:queued`;
/** Machinist's ready list (data format 3): queued jobs of the normal band beside `queued`. */
export const MACHINIST_READY_KEY = `${MACHINIST_PREFIX}:{${QUEUE}}:ready`;
/** Machinist's index of running jobs (workload 18: with `queued`, empty once every job ended). */
export const MACHINIST_ACTIVE_KEY = `${MACHINIST_PREFIX}:{${QUEUE}}:active`;
/** BullMQ's lists of waiting and running jobs (workload 18: empty once every job ended). */
export const BULL_WAIT_KEY = `bull:${QUEUE}:wait`;
export const BULL_ACTIVE_KEY = `bull:${QUEUE}:active`;
/** BullMQ's completed set (jobs are kept: removeOnComplete is false). */
export const BULL_COMPLETED_KEY = `bull:${QUEUE}:completed`;
export const JOB_NAME = 'noop';
/** Workload 6: a pipeline of three no-op steps, a checkpoint after each. */
export const PIPELINE_NAME = 'threeSteps';
/** Workload 6b: the same, each step yielding to the event loop once (every checkpoint written). */
export const PIPELINE_YIELD_NAME = 'threeStepsYield';
/** Workload 7: a parent that fans out FAN_CHILDREN no-op children and merges their results. */
export const FAN_NAME = 'fanMerge';
export const FAN_CHILDREN = 1_000;
/** Workload 15: a pipeline parked on an `after` timer until its input's `at` (ms since the epoch). */
export const PARKED_NAME = 'parkUntil';
/** Machinist's index of parked jobs with a wake time (and of delayed jobs); BullMQ's delayed set. */
export const MACHINIST_DELAYED_KEY = `${MACHINIST_PREFIX}:{${QUEUE}}:delayed`;
export const BULL_DELAYED_KEY = `bull:${QUEUE}:delayed`;
