// Workload 11 (issue 24): 10,000 schedules of everyMs 1000 on 2 supervisors (the bench worker
// processes, each with its schedule loop on): every tick once, and how late each tick's job was
// made (its record's createdAt, Redis's clock, minus the tick time: p50/p99). Machinist only;
// BullMQ's job schedulers make one delayed job per scheduler, a different model (no catch-up).
//
//   BENCH_ONLY=schedules npm run bench     (BENCH_SCHEDULES, BENCH_SCHEDULE_SECS to change the size)

import { Client, RedisStore, scheduledJobInfo } from '../../src/index.js';
import { JOB_NAME, MACHINIST_PREFIX, QUEUE } from '../common.js';
import { log, redis, spawnWorkers } from '../harness.js';
import { fmt, percentile, row } from '../results.js';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 10_000);
const SECS = Number(process.env.BENCH_SCHEDULE_SECS ?? 10);
/** Lateness is read from this many schedules' jobs (every tick of each): all 100k records cost minutes to read. */
const SAMPLED = 500;

export async function schedulesWorkload(): Promise<void> {
  log(
    `\n== 11. schedules: ${SCHEDULES} of everyMs 1000 for ${SECS} s on 2 supervisors (every tick once, lateness)`,
  );
  await redis.ctl.flushall();
  const workers = await spawnWorkers('machinist', 2, 50);
  const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
  const client = new Client({ store, queue: QUEUE });
  try {
    workers.go();
    // The workers register the machine at start: wait for it before the schedules name it.
    for (let i = 0; i < 100 && !(await store.machines()).some((m) => m.name === JOB_NAME); i++)
      await new Promise((r) => setTimeout(r, 100));
    const now = await store.now();
    // Created before the first tick (one write each, 50 at a time): 30 s for 10,000 on this box at worst.
    const startAt = Math.ceil((now + 30_000) / 1000) * 1000;
    const endAt = startAt + (SECS - 1) * 1000;
    const t0 = Date.now();
    for (let i = 0; i < SCHEDULES; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, SCHEDULES - i) }, (_, k) =>
          client.schedule(`s${i + k}`, {
            everyMs: 1000,
            machine: JOB_NAME,
            startAt,
            endAt,
            overlap: 'allowAll',
          }),
        ),
      );
    log(`  created ${SCHEDULES} schedules in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const ready = await store.now();
    if (ready > startAt) log(`  WARNING: creation ran past the first tick by ${ready - startAt} ms`);
    await new Promise((r) => setTimeout(r, endAt - ready + 5_000));
    // Every schedule ended: `next` null; started == ticks, nothing skipped or missed.
    const all = await client.schedules();
    const bad = all.filter((s) => s.next !== null || s.started !== SECS || s.skipped + s.missed > 0);
    const counts = await store.counts(QUEUE);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    log(
      `  jobs made ${total} (want ${SCHEDULES * SECS}); schedules not ending with every tick once: ${bad.length}`,
    );
    const late: number[] = [];
    for (let i = 0; i < SAMPLED; i++)
      for (let t = startAt; t <= endAt; t += 1000) {
        const id = `sch.s${Math.floor((i * SCHEDULES) / SAMPLED)}.${t}`;
        const job = await store.getJob(id, QUEUE);
        if (job) late.push(job.createdAt - scheduledJobInfo(id)!.at);
      }
    const p50 = percentile(late, 50);
    const p99 = percentile(late, 99);
    row('11', 'schedule tick late p50', 'ms', 'lower').samples.machinist.push(p50);
    row('11', 'schedule tick late p99', 'ms', 'lower').samples.machinist.push(p99);
    row('11', 'schedule ticks not once', 'count', 'lower').samples.machinist.push(
      Math.abs(total - SCHEDULES * SECS) + bad.length,
    );
    log(`  late p50 ${fmt(p50)} ms  p99 ${fmt(p99)} ms  (${late.length} jobs of ${SAMPLED} schedules)`);
  } finally {
    await workers.stop();
    client.close();
    await store.close();
  }
}
