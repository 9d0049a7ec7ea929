// Workload 15b (issue 25): single timers while the workers are busy. One worker process (c=100)
// runs a steady stream of 50 ms jobs at three quarters of what it can take (1,500/s against
// 100 / 50 ms = 2,000/s), and pipelines parked on an `after` timer come due one by one, spread
// over the run. Each timer's lateness is its pipeline's finish (the done index's score, Redis's
// clock) minus its due time: the promotion, the wait behind the stream's queued jobs, the claim
// and the resume. Machinist only (BullMQ has no parked pipeline; its delayed jobs are row 15's).

import { Client, RedisStore, defineJob } from '../../src/index.js';
import { JOB_NAME, MACHINIST_DONE_KEY, MACHINIST_PREFIX, PARKED_NAME, QUEUE } from '../common.js';
import { log, redis, spawnWorkers } from '../harness.js';
import { parkUntil } from '../machines.js';
import { fmt, percentile, row } from '../results.js';
import { loadavg } from 'node:os';

const STREAM_PER_SEC = Number(process.env.BENCH_BUSY_RATE ?? 1_500);
const JOB_MS = 50;
const TIMERS = Number(process.env.BENCH_BUSY_TIMERS ?? 500);
/** The stream runs this long; the timers fall due over its middle (after a warm-up, before its end). */
const RUN_MS = Number(process.env.BENCH_BUSY_MS ?? 30_000);
const WARM_MS = 5_000;
const TICK_MS = 50;

/** The stream's job, as the worker defines it (the client only names it). */
const noopJob = defineJob({ name: JOB_NAME, work: async () => undefined });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function busyTimersWorkload(): Promise<void> {
  log(
    `\n== 15b. ${TIMERS} single timers due spread over ${(RUN_MS - 2 * WARM_MS) / 1000} s while one worker process (c=100) runs ${STREAM_PER_SEC}/s jobs of ${JOB_MS} ms (Machinist)`,
  );
  await redis.ctl.flushall();
  const workers = await spawnWorkers('machinist', 1, 100, undefined, 'noop', undefined, {
    record: { jobMs: JOB_MS },
  });
  const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
  const client = new Client({ store, jobs: [noopJob, parkUntil], queue: QUEUE });
  try {
    workers.go();
    await sleep(500);
    const t0 = Date.now();
    // Each timer's due time, spread evenly over [t0 + WARM_MS, t0 + RUN_MS - WARM_MS).
    const span = RUN_MS - 2 * WARM_MS;
    const dueAt = Array.from({ length: TIMERS }, (_, i) => t0 + WARM_MS + Math.floor((i * span) / TIMERS));
    const ids = await client.enqueueMany(dueAt.map((at) => ({ machine: PARKED_NAME, input: { at } })));
    // The stream: a batch every TICK_MS, as many as the rate owes by now (a late tick catches up).
    let sent = 0;
    while (Date.now() - t0 < RUN_MS) {
      const owed = Math.floor(((Date.now() - t0) * STREAM_PER_SEC) / 1000) - sent;
      if (owed > 0) {
        await client.enqueueMany(Array.from({ length: owed }, () => ({ machine: JOB_NAME, input: {} })));
        sent += owed;
      }
      await sleep(TICK_MS);
    }
    const deadline = Date.now() + 60_000;
    let done: (string | null)[] = [];
    for (;;) {
      done = await redis.ctl.zmscore(MACHINIST_DONE_KEY, ...ids);
      if (done.every((s) => s !== null) || Date.now() > deadline) break;
      await sleep(100);
    }
    const lateMs = done.flatMap((s, i) => (s === null ? [] : [Number(s) - dueAt[i]!]));
    const missing = TIMERS - lateMs.length;
    const p50 = percentile(lateMs, 50);
    const p99 = percentile(lateMs, 99);
    row(
      '15b',
      `single timers while busy (${STREAM_PER_SEC}/s jobs of ${JOB_MS} ms): late p50`,
      'ms',
      'lower',
    ).samples.machinist.push(p50);
    row(
      '15b',
      `single timers while busy (${STREAM_PER_SEC}/s jobs of ${JOB_MS} ms): late p99`,
      'ms',
      'lower',
    ).samples.machinist.push(p99);
    log(
      `  machinist ${TIMERS} timers, ${sent} stream jobs: late p50 ${fmt(p50)} ms p99 ${fmt(p99)} ms max ${fmt(Math.max(...lateMs))} ms${missing ? `, ${missing} NOT done` : ''} (load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
    );
  } finally {
    client.close();
    await store.close();
    await workers.stop();
  }
}
