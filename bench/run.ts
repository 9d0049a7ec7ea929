// The benchmark suite: Machinist vs BullMQ on one private redis-server, alternating, median of
// REPS repetitions. Workers run in their own processes (bench/worker.ts). This file runs the
// workloads BENCH_ONLY picks (bench/workloads/) on the shared harness (harness.ts, config.ts),
// then prints the tables (results.ts) and writes bench/RESULTS.md (report.ts).
//
//   npm run bench                      full run, writes bench/RESULTS.md
//   BENCH_QUICK=1 npm run bench        2,000 jobs, 1 repetition, prints only
//   BENCH_JOBS=50000 npm run bench     jobs per workload (default 20,000)
//   BENCH_ONLY=enqueue,latency ...     a subset: enqueue, throughput, latency, pipeline, fan, backlog, heap, cluster, schedules,
//                                      throttle, limits, fairness (workloads 12-14: issue 24's flow gate, workloads/flow.ts)
//   BENCH_ONLY=cluster ...             workload 10: one node vs a 1-shard cluster vs 3 shards (3 queues;
//                                      one 3-partition queue), Redis CPU per shard, spread, Redis-bound ceiling
//   BENCH_HEAP_JOBS=2000000 ...        jobs for workload 9 (worker heap; BENCH_HEAP_EVERY: sample every)
//   BENCH_BACKLOG=200000 ...           backlog for workload 8 (default 1,000,000, as issue 5 asks)
//   BENCH_SYSTEMS=machinist ...        one system only (a probe: ratios need both)
//   BENCH_REPS=5, BENCH_LATENCY_JOBS=5000, BENCH_FLOWS=10 ...   repetitions, latency samples, flows
//   BENCH_AOF=off|on|both ...          Redis persistence (default both): every workload runs once without
//                                      persistence and once with appendonly yes + appendfsync everysec, each
//                                      on its own private redis-server; RESULTS.md has a table per mode
//   BENCH_ONLY=minimal                 workload 18 (issue 25): c=100 no-op with no finished record kept,
//                                      Machinist's record: 'minimal' beside BullMQ's removeOnComplete
//   BENCH_ONLY=parked,growth,fanbig    issue 25's rows: pipelines parked on an `after` timer all due at once
//                                      (BENCH_PARKED=10000,100000; BENCH_PARKED_PROCS=1,4 worker processes), cost growth with jobs queued and finished
//                                      (BENCH_GROWTH=10000,100000[,1000000]), one flow of BENCH_FAN_BIG children
//   BENCH_ONLY=busytimers              issue 25: single timers due spread over a run while one worker process
//                                      runs a steady stream of 50 ms jobs (BENCH_BUSY_RATE=1500 a second,
//                                      BENCH_BUSY_TIMERS=500, BENCH_BUSY_MS=30000); the timers' lateness
//   npm run bench -- --profile         CPU profile + SLOWLOG of the c=100 workload -> bench/PROFILE.md
//
// Probes that answer one question each, with their figures in bench/analysis.md, live in
// bench/probes/ (queueStructure.sh: Redis instructions and cache misses per job under callgrind;
// latencyParts.ts: latency split at the enqueue's return).

import { startBenchRedis, cpuCounters, log, want } from './harness.js';
import { AOF_LABEL, AOF_MODES, PROFILE, WRITE } from './config.js';
import { recordMode } from './results.js';
import { machine } from './machineInfo.js';
import { profileMode } from './profileRun.js';
import { resultsBody, stealNote, writeResults } from './report.js';
import { latencyWorkload } from './workloads/latency.js';
import { heapWorkload } from './workloads/memory.js';
import { fanWorkload, pipelineWorkload } from './workloads/pipeline.js';
import { clusterWorkload } from './workloads/cluster.js';
import { schedulesWorkload } from './workloads/schedules.js';
import { fairnessWorkload, limitsWorkload, throttleWorkload } from './workloads/flow.js';
import { fanBigWorkload, growthWorkload, parkedWorkload } from './workloads/scale.js';
import { busyTimersWorkload } from './workloads/timers.js';
import {
  backlogWorkload,
  enqueueWorkload,
  minimalWorkload,
  throughputWorkload,
} from './workloads/throughput.js';

/** The workloads by their BENCH_ONLY name, in the order they run. */
const WORKLOADS: [string, () => Promise<void>][] = [
  ['enqueue', enqueueWorkload],
  ['throughput', throughputWorkload],
  ['minimal', minimalWorkload],
  ['latency', latencyWorkload],
  ['pipeline', pipelineWorkload],
  ['fan', fanWorkload],
  ['backlog', backlogWorkload],
  ['heap', heapWorkload],
  ['cluster', clusterWorkload],
  ['schedules', schedulesWorkload],
  ['throttle', throttleWorkload],
  ['limits', limitsWorkload],
  ['fairness', fairnessWorkload],
  ['parked', parkedWorkload],
  ['busytimers', busyTimersWorkload],
  ['growth', growthWorkload],
  ['fanbig', fanBigWorkload],
];

async function main(): Promise<void> {
  const started = Date.now();
  const cpuAtStart = cpuCounters();
  let m: string[] = [];
  // One private redis-server per persistence mode, the workloads run in full on each in turn.
  for (const [i, mode] of AOF_MODES.entries()) {
    const redis = await startBenchRedis(mode);
    recordMode(mode);
    try {
      if (i === 0) {
        m = await machine();
        log('Machinist vs BullMQ benchmark\n' + m.join('\n'));
        if (PROFILE) return await profileMode();
      }
      log(`\n######## Redis persistence: ${AOF_LABEL[mode]}`);
      for (const [name, run] of WORKLOADS) if (want(name)) await run();
    } finally {
      await redis.stop();
    }
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const steal = stealNote(cpuAtStart, cpuCounters());
  const body = resultsBody();
  log('\n' + body + `\n\n(run took ${minutes} min; ${steal})`);
  if (WRITE) writeResults({ machine: m, minutes, steal, body });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
