// Workload 9: a worker's heap over millions of jobs (Machinist only).

import { BULK, HEAP_BACKLOG, HEAP_EVERY, HEAP_JOBS } from '../config.js';
import { MACHINIST_QUEUED_KEY, MACHINIST_READY_KEY } from '../common.js';
import { log, redis, spawnWorkers } from '../harness.js';
import { fmt, row } from '../results.js';
import { openSide } from '../sides.js';

/**
 * Workload 9: does a worker's memory grow with the jobs it has run? 2,000,000 no-op jobs through
 * one worker (c=100), fed in batches so that at most HEAP_BACKLOG wait; the worker reports
 * heapUsed right after a full GC every HEAP_EVERY jobs. The first sample is the warm-up: growth
 * is measured from it to the last one.
 */
export async function heapWorkload(): Promise<void> {
  const total = HEAP_JOBS.toLocaleString('en-US');
  log(
    `\n== 9. worker heap over ${total} no-op jobs, one worker (c=100): heapUsed after a full GC every ${HEAP_EVERY.toLocaleString('en-US')} jobs`,
  );
  await redis.ctl.flushall();
  const samples: { jobs: number; heapUsedBytes: number }[] = [];
  let finished!: () => void;
  const allRun = new Promise<void>((r) => (finished = r));
  const workers = await spawnWorkers('machinist', 1, 100, undefined, 'noop', {
    every: HEAP_EVERY,
    onSample: (jobs, heapUsedBytes) => {
      samples.push({ jobs, heapUsedBytes });
      log(`  ${jobs.toLocaleString('en-US').padStart(9)} jobs  heapUsed ${fmt(heapUsedBytes / 1e6)} MB`);
      if (jobs >= HEAP_JOBS) finished();
    },
  });
  const side = openSide('machinist', redis);
  const t0 = performance.now();
  try {
    workers.go();
    for (let fed = 0; fed < HEAP_JOBS;) {
      const backlog =
        (await redis.ctl.zcard(MACHINIST_QUEUED_KEY)) + (await redis.ctl.llen(MACHINIST_READY_KEY));
      if (backlog > HEAP_BACKLOG) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      const k = Math.min(BULK, HEAP_JOBS - fed);
      await side.enqueueBulk(k, k);
      fed += k;
    }
    await Promise.race([
      allRun,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('workload 9 timed out')), 3_600_000).unref(),
      ),
    ]);
  } finally {
    await workers.stop();
    await side.close();
  }
  const secs = (performance.now() - t0) / 1000;
  const first = samples[0]!;
  const last = samples[samples.length - 1]!;
  const mb = (b: number) => b / 1e6;
  const after = samples.map((x) => x.heapUsedBytes);
  row(
    '9',
    `worker heapUsed after GC at ${first.jobs.toLocaleString('en-US')} jobs (warm)`,
    'MB',
    'lower',
  ).samples.machinist.push(mb(first.heapUsedBytes));
  row(
    '9',
    `worker heapUsed after GC at ${last.jobs.toLocaleString('en-US')} jobs`,
    'MB',
    'lower',
  ).samples.machinist.push(mb(last.heapUsedBytes));
  row('9', 'worker heap growth after warm-up', 'MB', 'lower').samples.machinist.push(
    mb(last.heapUsedBytes - first.heapUsedBytes),
  );
  log(
    `  growth ${first.jobs.toLocaleString('en-US')} -> ${last.jobs.toLocaleString('en-US')} jobs: ${fmt(mb(last.heapUsedBytes - first.heapUsedBytes))} MB ` +
      `(range over samples ${fmt(mb(Math.min(...after)))}-${fmt(mb(Math.max(...after)))} MB); ${fmt(HEAP_JOBS / secs)} jobs/s`,
  );
}
