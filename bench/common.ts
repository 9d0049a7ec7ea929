// Shared by the bench orchestrator (run.ts) and its worker processes (worker.ts).

export type SystemName = 'machinist' | 'bullmq';

/** What the orchestrator passes to a worker process (as JSON in argv[2]). */
export interface WorkerConfig {
  system: SystemName;
  host: string;
  port: number;
  concurrency: number;
  /** What the worker runs: no-op jobs (default), the 3-step pipeline (6) or fan-out flows (7). */
  mode?: 'noop' | 'pipeline' | 'fan';
  /** Write a V8 CPU profile of the measured window (go -> stop) to this file. */
  cpuProfile?: string;
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
    };

// Names shared by both sides.
export const QUEUE = 'bench';
export const MACHINIST_PREFIX = 'mb';
/** Machinist's index of done jobs (see src/store/keys.ts). */
export const MACHINIST_DONE_KEY = `${MACHINIST_PREFIX}:{${QUEUE}}:done`;
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
