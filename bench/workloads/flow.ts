// Workloads 12-14 (issue 24's flow gate, docs/flow-control.md), each system in the same run:
//
// 12 throttle: { limit 100, perMs 1000, burst 0, and burst 10 } on one queue served by 4 worker processes, a
//    backlog larger than can run: jobs started in THROTTLE_SECS (target within 2% of limit x secs)
//    and the most started in any sliding 1000 ms window (target <= limit + burst), from the start
//    times the workers report (their Date.now() as the handler begins; one machine, one clock).
//    BullMQ: its Worker's `limiter: { max: 100, duration: 1000 }` on each of the 4 workers.
// 13 limits overhead: no-op throughput (c=100, 1 process) of jobs spread over 10,000 concurrency
//    keys with `total` and `perKey` set, against the same queue without limits (target >= 80%),
//    and BullMQ with and without a limiter too high to bind (its rate-limited queue; BullMQ OSS
//    has no groups) (target: Machinist with limits >= BullMQ rate-limited).
// 14 fairness: 50,000 jobs of one key, then 50 of another; Machinist perKey 5 total 10 on 2
//    processes; BullMQ (no groups in OSS) the same 50,050 jobs at concurrency 10 (2 x 5): how long
//    the small key's 50 take behind the backlog and alone. BullMQ's FIFO puts them after all
//    50,000; the wait is capped at FAIR_CAP_SECS and then projected from the rate seen.
//
//   BENCH_ONLY=throttle,limits,fairness npm run bench
//   BENCH_THROTTLE_SECS, BENCH_FAIR_BIG, BENCH_FAIR_JOB_MS, BENCH_FAIR_CAP_SECS change the sizes.

import { loadavg } from 'node:os';
import { Client, RedisStore } from '../../src/index.js';
import {
  BULL_COMPLETED_KEY,
  MACHINIST_DONE_KEY,
  MACHINIST_PREFIX,
  QUEUE,
  type SystemName,
} from '../common.js';
import { BULK, N, QUICK, REPS } from '../config.js';
import { log, orderFor, processRun, redis, spawnWorkers } from '../harness.js';
import { flowMetrics, OVERHEAD_LIMITS, THROTTLE_WANT } from '../flowMetrics.js';
import { fmt, row } from '../results.js';
import { openSide } from '../sides.js';

const THROTTLE = THROTTLE_WANT;
/** Machinist runs once per burst: 0 (the bound is the limit itself) and a stated one. */
const THROTTLE_BURSTS = (process.env.BENCH_THROTTLE_BURSTS ?? '0,10').split(',').map(Number);
const THROTTLE_SECS = Number(process.env.BENCH_THROTTLE_SECS ?? (QUICK ? 5 : 30));
const THROTTLE_PROCS = 4;
const KEYS = 10_000;
const LIMITS = OVERHEAD_LIMITS;
const FAIR_BIG = Number(process.env.BENCH_FAIR_BIG ?? (QUICK ? 5_000 : 50_000));
const FAIR_SMALL = 50;
const FAIR_JOB_MS = Number(process.env.BENCH_FAIR_JOB_MS ?? 50);
const FAIR_CAP_SECS = Number(process.env.BENCH_FAIR_CAP_SECS ?? (QUICK ? 10 : 60));

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** Runs `fn` with a Machinist client on the bench's queue (its limits are set through it). */
async function withClient<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
  const client = new Client({ store, queue: QUEUE });
  try {
    return await fn(client);
  } finally {
    client.close();
    await store.close();
  }
}

/** The most of the sorted times `ts` inside any window [t, t + ms). */
function maxInWindow(ts: number[], ms: number): number {
  let best = 0;
  for (let lo = 0, hi = 0; hi < ts.length; hi++) {
    while (ts[hi]! - ts[lo]! >= ms) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// 12. Throttle accuracy.

/** Of the times `ts`: how many in THROTTLE_SECS from the first, and the most in any perMs. */
function windowed(ts: number[]): { started: number; peak: number } {
  const sorted = [...ts].sort((a, b) => a - b);
  const inWindow = sorted.filter((t) => t < sorted[0]! + THROTTLE_SECS * 1000);
  return { started: inWindow.length, peak: maxInWindow(inWindow, THROTTLE.perMs) };
}

/** Each finished job's start stamp as its system wrote it (Machinist `ct`, BullMQ processedOn). */
async function claimTimes(system: SystemName): Promise<number[]> {
  const ids = await redis.ctl.zrange(
    system === 'machinist' ? MACHINIST_DONE_KEY : BULL_COMPLETED_KEY,
    '0',
    '-1',
  );
  const pipe = redis.ctl.pipeline();
  for (const id of ids)
    if (system === 'machinist') pipe.hget(`${MACHINIST_PREFIX}:{${QUEUE}}:job:${id}`, 'ct');
    else pipe.hget(`bull:${QUEUE}:${id}`, 'processedOn');
  const out = (await pipe.exec()) ?? [];
  return out.map(([, v]) => Number(v)).filter((t) => Number.isFinite(t) && t > 0);
}

export async function throttleWorkload(): Promise<void> {
  const want = THROTTLE.limit * ((THROTTLE_SECS * 1000) / THROTTLE.perMs);
  const backlog = Math.ceil(want * 1.5);
  log(
    `\n== 12. throttle { limit ${THROTTLE.limit}, perMs ${THROTTLE.perMs} } for ${THROTTLE_SECS} s, ${THROTTLE_PROCS} worker processes, ${backlog} jobs queued (want ${want} started, <= limit + burst in any ${THROTTLE.perMs} ms); Machinist with burst ${THROTTLE_BURSTS.join(' and ')}`,
  );
  const runs: [SystemName, number][] = orderFor(0).flatMap((system) =>
    system === 'machinist' ? THROTTLE_BURSTS.map((b): [SystemName, number] => [system, b]) : [[system, 0]],
  );
  for (const [system, burst] of runs) {
    await redis.ctl.flushall();
    if (system === 'machinist')
      await withClient((c) => c.setQueueLimits(QUEUE, { rateLimit: { ...THROTTLE, burst } }));
    const side = openSide(system, redis);
    await side.enqueueBulk(backlog, BULK);
    await side.close();
    const starts: number[] = [];
    const workers = await spawnWorkers(system, THROTTLE_PROCS, 10, undefined, 'noop', undefined, {
      record: {},
      onJob: (m) => starts.push(m.start),
      ...(system === 'bullmq' ? { limiter: { max: THROTTLE.limit, duration: THROTTLE.perMs } } : {}),
    });
    const loadAt = load();
    workers.go();
    // The window opens at the first start, wherever each process was when it heard 'go'.
    while (starts.length === 0) await sleep(5);
    await sleep(THROTTLE_SECS * 1000 + 1_000);
    await workers.stop();
    const { started, peak } = windowed(starts);
    // The same from each side's own start stamp: Machinist's claim time (`ct`, Redis's clock,
    // the GCRA's `now`), BullMQ's processedOn (its worker's clock at the move to active).
    const gate = windowed(await claimTimes(system));
    const off = ((started - want) / want) * 100;
    // BullMQ's limiter has no burst: its row sits with Machinist's burst 0.
    const label = `burst ${burst}`;
    row('12', flowMetrics.started(burst), 'jobs', 'higher').samples[system].push(started);
    row('12', flowMetrics.off(burst), '%', 'lower').samples[system].push(Math.abs(off));
    row('12', flowMetrics.peakStart(burst), 'jobs', 'lower').samples[system].push(peak);
    row('12', flowMetrics.peakClaim(burst), 'jobs', 'lower').samples[system].push(gate.peak);
    log(
      `  ${system.padEnd(9)} ${label}: started ${started} in ${THROTTLE_SECS} s (${off >= 0 ? '+' : ''}${off.toFixed(2)}% of ${want}); most in any ${THROTTLE.perMs} ms: ${peak} (limit + burst ${THROTTLE.limit + burst}); by the claim stamps: ${gate.started} in ${THROTTLE_SECS} s, most ${gate.peak}; load average ${loadAt}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// 13. Overhead of the limits.

export async function limitsWorkload(): Promise<void> {
  log(
    `\n== 13. limits overhead: ${N.toLocaleString('en-US')} no-op jobs over ${KEYS.toLocaleString('en-US')} keys, c=100, 1 process (Machinist total ${LIMITS.total} perKey ${LIMITS.perKey} vs none; BullMQ limiter too high to bind vs none); load average ${load()}`,
  );
  const keyOf = (i: number) => `k${i % KEYS}`;
  const variants: {
    system: SystemName;
    metric: string;
    run: () => ReturnType<typeof processRun>;
  }[] = [
    {
      system: 'machinist',
      metric: flowMetrics.plain,
      run: () =>
        processRun('machinist', {
          procs: 1,
          concurrency: 100,
          n: N,
          keyed: { keyOf, concurrencyKey: false },
        }),
    },
    {
      system: 'machinist',
      metric: flowMetrics.keysOnly,
      run: () => processRun('machinist', { procs: 1, concurrency: 100, n: N, keyed: { keyOf } }),
    },
    {
      system: 'machinist',
      metric: flowMetrics.limited,
      run: () =>
        processRun('machinist', {
          procs: 1,
          concurrency: 100,
          n: N,
          keyed: { keyOf },
          setup: () => withClient((c) => c.setQueueLimits(QUEUE, { concurrency: LIMITS })),
        }),
    },
    {
      system: 'bullmq',
      metric: flowMetrics.plain,
      run: () => processRun('bullmq', { procs: 1, concurrency: 100, n: N, keyed: { keyOf } }),
    },
    {
      system: 'bullmq',
      metric: flowMetrics.bullLimited,
      run: () =>
        processRun('bullmq', {
          procs: 1,
          concurrency: 100,
          n: N,
          keyed: { keyOf },
          limiter: { max: 1_000_000, duration: 1000 },
        }),
    },
  ];
  for (let rep = 0; rep < REPS; rep++) {
    // Alternate the order each repetition, as the other workloads do.
    const order = rep % 2 === 0 ? variants : [...variants].reverse();
    for (const v of order) {
      const r = await v.run();
      row('13', v.metric, 'jobs/s', 'higher').samples[v.system].push(r.jobsPerSec);
      // Less at the mercy of a loaded host than jobs/s: what each job costs Redis (enqueue + claim + finish).
      row('13', `${v.metric}: Redis commands per job`, 'commands', 'lower').samples[v.system].push(
        r.cmdsPerJob,
      );
      row('13', `${v.metric}: Redis CPU per job`, 'us', 'lower').samples[v.system].push(r.redisCpuUsPerJob);
      log(
        `  rep ${rep + 1} ${v.system.padEnd(9)} ${v.metric.padEnd(70)} ${fmt(r.jobsPerSec)} jobs/s, ${fmt(r.cmdsPerJob)} Redis commands and ${fmt(r.redisCpuUsPerJob)} us Redis CPU per job`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 14. Fairness between keys.

/** How long the small key's jobs take, from go, behind `big` jobs of the other key. */
async function fairRun(
  system: SystemName,
  big: number,
): Promise<{ ms: number; finished: boolean; done: number; bigDone: number }> {
  await redis.ctl.flushall();
  if (system === 'machinist')
    await withClient((c) => c.setQueueLimits(QUEUE, { concurrency: { perKey: 5, total: 10 } }));
  const side = openSide(system, redis);
  await side.enqueueBulk(big, BULK, { keyOf: () => 'big' });
  await side.enqueueBulk(FAIR_SMALL, BULK, { keyOf: () => 'small' });
  await side.close();
  let small = 0;
  let bigDone = 0;
  let allSmall!: () => void;
  const smallDone = new Promise<void>((r) => (allSmall = r));
  // Machinist: 2 supervisors of concurrency 10 under total 10; BullMQ: 2 workers of 5 (10 in all).
  const workers = await spawnWorkers(
    system,
    2,
    system === 'machinist' ? 10 : 5,
    undefined,
    'noop',
    undefined,
    {
      record: { jobMs: FAIR_JOB_MS },
      onJob: (m) => {
        if (m.key !== 'small') bigDone++;
        else if (++small === FAIR_SMALL) allSmall();
      },
    },
  );
  const t0 = performance.now();
  workers.go();
  const cap = sleep(FAIR_CAP_SECS * 1000).then(() => false);
  const finished = await Promise.race([smallDone.then(() => true), cap]);
  const ms = performance.now() - t0;
  await workers.stop();
  return { ms, finished, done: small, bigDone };
}

export async function fairnessWorkload(): Promise<void> {
  log(
    `\n== 14. fairness: ${FAIR_BIG.toLocaleString('en-US')} jobs of key "big", then ${FAIR_SMALL} of key "small", ${FAIR_JOB_MS} ms each (Machinist perKey 5 total 10, 2 procs; BullMQ concurrency 10 (2 x 5), no groups); wait capped at ${FAIR_CAP_SECS} s; load average ${load()}`,
  );
  for (const system of orderFor(0)) {
    const alone = await fairRun(system, 0);
    const behind = await fairRun(system, FAIR_BIG);
    let behindMs = behind.ms;
    let how = 'measured';
    if (!behind.finished) {
      // FIFO: the small key's jobs start after every big one; project from the rate seen.
      const rate = behind.bigDone / behind.ms;
      behindMs = FAIR_BIG / rate + alone.ms;
      how = `not finished at the ${FAIR_CAP_SECS} s cap (${behind.done} of ${FAIR_SMALL} small, ${behind.bigDone} big done): projected from ${fmt(rate * 1000)} big jobs/s`;
    }
    const ratio = behindMs / alone.ms;
    row('14', flowMetrics.fairAlone, 'ms', 'lower').samples[system].push(alone.ms);
    row('14', flowMetrics.fairBehind, 'ms', 'lower').samples[system].push(behindMs);
    row('14', flowMetrics.fairRatio, 'ratio', 'lower').samples[system].push(ratio);
    log(
      `  ${system.padEnd(9)} alone ${fmt(alone.ms)} ms; behind the backlog ${fmt(behindMs)} ms (${how}); ratio ${ratio.toFixed(2)}; load average ${load()}`,
    );
  }
}
