// Workload 3: latency from enqueue to the result seen by a waiting client, one job at a time.

import { LATENCY_JOBS, LATENCY_WARMUP, REPS } from '../config.js';
import { log, orderFor, redis, spawnWorkers } from '../harness.js';
import { fmt, percentile, row } from '../results.js';
import { openSide } from '../sides.js';

export async function latencyWorkload(): Promise<void> {
  log(
    `\n== 3. latency enqueue -> result seen by a waiting client (${LATENCY_JOBS} jobs one at a time, worker c=10)`,
  );
  for (let rep = 0; rep < REPS; rep++) {
    for (const system of orderFor(rep)) {
      await redis.ctl.flushall();
      const workers = await spawnWorkers(system, 1, 10);
      const side = openSide(system, redis);
      try {
        workers.go();
        await new Promise((r) => setTimeout(r, 300));
        const ms = (await side.latency(LATENCY_JOBS, LATENCY_WARMUP)).total;
        const p50 = percentile(ms, 50);
        const p99 = percentile(ms, 99);
        row('3', 'latency p50', 'ms', 'lower').samples[system].push(p50);
        row('3', 'latency p99', 'ms', 'lower').samples[system].push(p99);
        log(`  rep ${rep + 1} ${system.padEnd(9)} p50 ${fmt(p50)} ms  p99 ${fmt(p99)} ms`);
      } finally {
        await workers.stop();
        await side.close();
      }
    }
  }
}
