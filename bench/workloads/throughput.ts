// Workloads 1, 2 and 8: enqueue rates, no-op throughput by concurrency and process count (whose
// c=100 runs also give the Redis and worker figures of 4 and 5), and throughput behind a backlog.

import { BACKLOG, BULK, ENQ_IN_FLIGHT, N, REPS } from '../config.js';
import { log, orderFor, processRun, redis, type RunResult } from '../harness.js';
import { cmdBreakdown, fmt, row } from '../results.js';
import { openSide } from '../sides.js';

export async function enqueueWorkload(): Promise<void> {
  log(`\n== 1. enqueue (${N.toLocaleString('en-US')} jobs, no workers)`);
  for (let rep = 0; rep < REPS; rep++) {
    for (const system of orderFor(rep)) {
      for (const mode of ['single', 'bulk'] as const) {
        await redis.ctl.flushall();
        const side = openSide(system, redis);
        try {
          const t0 = performance.now();
          if (mode === 'single') await side.enqueueSingle(N, ENQ_IN_FLIGHT);
          else await side.enqueueBulk(N, BULK);
          const rate = N / ((performance.now() - t0) / 1000);
          const metric = mode === 'single' ? 'enqueue, 100 in flight' : 'enqueueMany, batches of 1,000';
          row('1', metric, 'jobs/s', 'higher').samples[system].push(rate);
          log(`  rep ${rep + 1} ${system.padEnd(9)} ${metric.padEnd(30)} ${fmt(rate)} jobs/s`);
        } finally {
          await side.close();
        }
      }
    }
  }
}

export async function throughputWorkload(): Promise<void> {
  log(`\n== 2. throughput of no-op jobs (${N.toLocaleString('en-US')} jobs, queue filled first)`);
  log('   (the c=100 1-proc runs also give workloads 4 and 5: Redis commands/CPU/memory, worker CPU/RSS)');
  const configs = [
    { concurrency: 1, procs: 1 },
    { concurrency: 10, procs: 1 },
    { concurrency: 100, procs: 1 },
    { concurrency: 100, procs: 2 },
  ];
  for (const c of configs) {
    const metric = `throughput c=${c.concurrency}, ${c.procs} proc${c.procs > 1 ? 's' : ''}`;
    for (let rep = 0; rep < REPS; rep++) {
      for (const system of orderFor(rep)) {
        const r = await processRun(system, { ...c, n: N });
        row('2', metric, 'jobs/s', 'higher').samples[system].push(r.jobsPerSec);
        let extra = '';
        if (c.concurrency === 100 && c.procs === 1) {
          row('4', 'Redis commands per job (enqueue+claim+finish)', 'commands', 'lower').samples[system].push(
            r.cmdsPerJob,
          );
          row('4', 'Redis CPU per job', 'us', 'lower').samples[system].push(r.redisCpuUsPerJob);
          row('5', 'Redis memory per finished job kept', 'bytes', 'lower').samples[system].push(
            r.memPerJobBytes,
          );
          row('5', 'worker CPU per job (c=100)', 'us', 'lower').samples[system].push(r.workerCpuUsPerJob);
          row('5', 'worker peak RSS (c=100)', 'MB', 'lower').samples[system].push(r.workerMaxRssBytes / 1e6);
          cmdBreakdown(system).push(r.cmds);
          extra = `  cmds/job ${fmt(r.cmdsPerJob)}  redis cpu/job ${fmt(r.redisCpuUsPerJob)} us  mem/job ${fmt(r.memPerJobBytes)} B  worker cpu/job ${fmt(r.workerCpuUsPerJob)} us  rss ${fmt(r.workerMaxRssBytes / 1e6)} MB`;
        }
        log(`  rep ${rep + 1} ${system.padEnd(9)} ${metric.padEnd(26)} ${fmt(r.jobsPerSec)} jobs/s${extra}`);
      }
    }
  }
}

export async function backlogWorkload(): Promise<void> {
  const b = BACKLOG.toLocaleString('en-US');
  log(
    `\n== 8. throughput (c=100, 1 proc, ${N.toLocaleString('en-US')} jobs) with ${b} more queued behind vs an empty queue, and (control) vs the ${b} queued on another queue`,
  );
  const perJob = (r: RunResult) =>
    `worker ${fmt(r.workerCpuUsPerJob)} us, Redis ${fmt(r.processingRedisCpuUsPerJob)} us, bench process ${fmt(r.parentCpuUsPerJob)} us`;
  for (let rep = 0; rep < REPS; rep++) {
    for (const system of orderFor(rep)) {
      const base = { procs: 1, concurrency: 100, n: N, spawnAfterEnqueue: true, fillInChild: true };
      const empty = await processRun(system, base);
      const full = await processRun(system, { ...base, backlog: BACKLOG });
      // The same data set in Redis, but not in this queue: what the backlog costs beyond the
      // size of Redis's data set (bench/analysis.md).
      const other = await processRun(system, { ...base, otherQueueBacklog: BACKLOG });
      row('8', 'throughput, empty queue', 'jobs/s', 'higher').samples[system].push(empty.jobsPerSec);
      row('8', `throughput, ${b} queued`, 'jobs/s', 'higher').samples[system].push(full.jobsPerSec);
      row('8', 'backlog/empty throughput', 'ratio', 'higher').samples[system].push(
        full.jobsPerSec / empty.jobsPerSec,
      );
      row('8', `(control) throughput, empty queue, ${b} queued on another queue`, 'jobs/s', 'higher').samples[
        system
      ].push(other.jobsPerSec);
      row('8', '(control) backlog/another queue throughput', 'ratio', 'higher').samples[system].push(
        full.jobsPerSec / other.jobsPerSec,
      );
      log(
        `  rep ${rep + 1} ${system.padEnd(9)} empty ${fmt(empty.jobsPerSec)} jobs/s  backlog ${fmt(full.jobsPerSec)} jobs/s  (${((full.jobsPerSec / empty.jobsPerSec) * 100).toFixed(0)}%)  other queue ${fmt(other.jobsPerSec)} jobs/s`,
      );
      log(`      per job: empty: ${perJob(empty)}; backlog: ${perJob(full)}; other queue: ${perJob(other)}`);
    }
  }
}

/**
 * Workload 18 (issue 25): no-op jobs at c=100, 1 process, no finished record kept: Machinist's
 * jobs made with `record: 'minimal'` (no audit log or stream entries, the record deleted as it
 * ends done) beside BullMQ's with `removeOnComplete: true`, the fair comparison. A run ends when
 * nothing is queued or running (there is no done index to count).
 */
export async function minimalWorkload(): Promise<void> {
  log(
    `\n== 18. c=100 no-op, record minimal (BullMQ: removeOnComplete) (${N.toLocaleString('en-US')} jobs, queue filled first)`,
  );
  const metric = 'throughput c=100, 1 proc, record minimal / removeOnComplete';
  for (let rep = 0; rep < REPS; rep++) {
    for (const system of orderFor(rep)) {
      const r = await processRun(system, { concurrency: 100, procs: 1, n: N, lean: true });
      row('18', metric, 'jobs/s', 'higher').samples[system].push(r.jobsPerSec);
      row('18', 'Redis CPU per job (record minimal)', 'us', 'lower').samples[system].push(r.redisCpuUsPerJob);
      row('18', 'Redis commands per job (record minimal)', 'commands', 'lower').samples[system].push(
        r.cmdsPerJob,
      );
      row('18', 'Redis memory left per job (record minimal)', 'bytes', 'lower').samples[system].push(
        r.memPerJobBytes,
      );
      log(
        `  rep ${rep + 1} ${system.padEnd(9)} ${fmt(r.jobsPerSec)} jobs/s  cmds/job ${fmt(r.cmdsPerJob)}  redis cpu/job ${fmt(r.redisCpuUsPerJob)} us  mem left/job ${fmt(r.memPerJobBytes)} B  worker cpu/job ${fmt(r.workerCpuUsPerJob)} us`,
      );
    }
  }
}
