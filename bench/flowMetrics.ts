// The row names of workloads 12-14 (issue 24's flow gate, workloads/flow.ts), shared with the
// targets table (results.ts) that reads them back.

export const THROTTLE_WANT = { limit: 100, perMs: 1000 };
/** Workload 13's limits: high enough that a run of c=100 is not held by them (each key's jobs are
 * 10,000 apart in the queue), so the row measures their bookkeeping. */
export const OVERHEAD_LIMITS = { total: 200, perKey: 2 };

export const flowMetrics = {
  started: (burst: number) => `throttle 100/s (burst ${burst}), 4 procs: jobs started in the window`,
  off: (burst: number) => `throttle (burst ${burst}): off limit x window`,
  peakStart: (burst: number) => `throttle (burst ${burst}): most started in any 1000 ms (handler start)`,
  peakClaim: (burst: number) => `throttle (burst ${burst}): most started in any 1000 ms (claim stamp)`,
  plain: 'limits overhead: no limits (keys in input only)',
  keysOnly: 'limits overhead: concurrency keys, no limits',
  limited: `limits overhead: concurrency keys + total ${OVERHEAD_LIMITS.total} perKey ${OVERHEAD_LIMITS.perKey}`,
  bullLimited: 'limits overhead: rate-limited queue (limiter 1,000,000/s: never binds)',
  fairAlone: "fairness: small key's 50 alone",
  fairBehind: "fairness: small key's 50 behind the other key's backlog",
  fairRatio: 'fairness: behind / alone',
};
