// Workloads 15-17 (issue 25): Machinist at scale beside BullMQ. (15) pipelines parked on an
// `after` timer, all due at the same instant (BullMQ's nearest: delayed jobs); (16) cost growth:
// time and Redis memory per job with 10k, 100k (1M: BENCH_GROWTH) jobs queued and then finished;
// (17) one fan-out flow of 100,000 children (BullMQ: a FlowProducer flow). One run per size, system
// and persistence mode: at these sizes a repetition costs minutes.

import { Queue } from 'bullmq';
import { Client, RedisStore } from '../../src/index.js';
import {
  BULL_COMPLETED_KEY,
  BULL_DELAYED_KEY,
  JOB_NAME,
  MACHINIST_ACTIVE_KEY,
  MACHINIST_DELAYED_KEY,
  MACHINIST_DONE_KEY,
  MACHINIST_PREFIX,
  PARKED_NAME,
  QUEUE,
  type SystemName,
} from '../common.js';
import {
  BULK,
  FAN_BIG,
  GROWTH_SIZES,
  PARKED_HOLD,
  PARKED_LEAD_MS,
  PARKED_PROFILE_DIR,
  PARKED_PROCS,
  PARKED_SIZES,
} from '../config.js';
import { log, orderFor, processRun, redis, spawnWorkers, waitDone } from '../harness.js';
import { parkUntil } from '../machines.js';
import { fmt, percentile, row } from '../results.js';
import { usedMemory } from '../redis.js';
import { fanFlows } from './pipeline.js';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { analyzeProfile } from '../profile.js';

const size = (n: number) =>
  n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : String(n);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Parks per second seen at the last run, per system: the next run's due time is set from it. */
const parkRateSeen: Partial<Record<SystemName, number>> = {};

interface ParkedResult {
  parkedPerSec: number;
  memPerParkedBytes: number;
  resumedPerSec: number;
  lateMs: number[];
  /** All parked before the due time (else the lateness mixes in jobs that parked late). */
  parkedInTime: boolean;
  /** THE EARLY LEASE: jobs held (claimed early, in `active`) just before the due time; null: not read. */
  heldAtDue: number | null;
}

/** Enqueues `n` jobs due at `at`: Machinist pipelines that park on their timer, BullMQ delayed jobs. */
async function enqueueDueAt(system: SystemName, n: number, at: number): Promise<void> {
  if (system === 'machinist') {
    const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
    const client = new Client({ store, jobs: [parkUntil], queue: QUEUE });
    try {
      for (let done = 0; done < n; done += BULK)
        await client.enqueueMany(
          Array.from({ length: Math.min(BULK, n - done) }, () => ({ machine: PARKED_NAME, input: { at } })),
        );
    } finally {
      client.close();
      await store.close();
    }
    return;
  }
  const queue = new Queue(QUEUE, { connection: { host: redis.host, port: redis.port } });
  try {
    for (let done = 0; done < n; done += BULK) {
      const delay = Math.max(0, at - Date.now());
      await queue.addBulk(
        Array.from({ length: Math.min(BULK, n - done) }, () => ({
          name: JOB_NAME,
          data: {},
          opts: { delay, removeOnComplete: false },
        })),
      );
    }
  } finally {
    await queue.close();
  }
}

/**
 * BENCH_PARKED_SPLIT=1: how many jobs each worker holds 1 s before the due time (a job's token is
 * `<workerId>:<n>`): a diagnosis, not a figure (its reads load Redis in the lead). Read at the due
 * instant, the reads ran into it: jobs already done read as nobody's.
 */
async function heldByWorker(): Promise<string> {
  const ids = await redis.ctl.zrange(MACHINIST_ACTIVE_KEY, '0', '-1');
  const p = redis.ctl.pipeline();
  for (const id of ids) p.hget(`${MACHINIST_PREFIX}:{${QUEUE}}:job:${id}`, 'tk');
  const by = new Map<string, number>();
  for (const [, tk] of (await p.exec()) ?? []) {
    const w = String(tk).slice(0, String(tk).lastIndexOf(':'));
    by.set(w, (by.get(w) ?? 0) + 1);
  }
  return [...by.values()].sort((a, b) => b - a).join(', ');
}

/**
 * One run of workload 15: `procs` worker processes (c=100 each) running from the start; `n` jobs enqueued,
 * all due at `at`. Park rate: jobs in the delayed index / time from the enqueue's start (for
 * Machinist each was claimed, run to its timer and parked by the worker; for BullMQ the delayed
 * add). Memory: the used_memory delta with all parked, per job. Resume rate: jobs / time from the
 * due time to the last one finished. Lateness: each job's finish (the done index's score, Redis's
 * clock) minus the due time.
 */
async function parkedRun(system: SystemName, n: number, procs: number): Promise<ParkedResult> {
  await redis.ctl.flushall();
  const early = PARKED_LEAD_MS > 0 ? { early: { leadMs: PARKED_LEAD_MS, holdMax: PARKED_HOLD } } : {};
  // BENCH_PARKED_PROFILE=<dir>: each Machinist worker's CPU profile, read over the drain alone.
  const profile =
    PARKED_PROFILE_DIR && system === 'machinist'
      ? join(PARKED_PROFILE_DIR, `parked-${n}-${procs}.cpuprofile`)
      : undefined;
  const workers = await spawnWorkers(system, procs, 100, profile, 'noop', undefined, early);
  let drain: { fromMs: number; toMs: number } | undefined;
  const delayedKey = system === 'machinist' ? MACHINIST_DELAYED_KEY : BULL_DELAYED_KEY;
  const doneKey = system === 'machinist' ? MACHINIST_DONE_KEY : BULL_COMPLETED_KEY;
  try {
    workers.go();
    await sleep(500); // the supervisor's start (machine registration) out of the memory figure
    const mem0 = await usedMemory(redis.ctl);
    const t0 = Date.now();
    // Due after all are parked: 1.5x the time the last size's park rate gives (a first guess of
    // 1,000/s for Machinist, 10,000/s for BullMQ's bulk add), plus 5 s.
    const rate = parkRateSeen[system] ?? (system === 'machinist' ? 1_000 : 10_000);
    const at = t0 + 5_000 + Math.ceil((1.5 * n * 1000) / rate);
    await enqueueDueAt(system, n, at);
    let parked = 0;
    while ((parked = await redis.ctl.zcard(delayedKey)) < n && Date.now() < at) await sleep(20);
    const tParked = Date.now();
    const parkedInTime = parked >= n;
    const memPerParkedBytes = ((await usedMemory(redis.ctl)) - mem0) / n;
    const parkedPerSec = (parked * 1000) / (tParked - t0);
    if (parkedInTime) parkRateSeen[system] = parkedPerSec;
    else log(`  WARNING: ${system}: only ${parked} of ${n} parked by the due time`);
    // THE EARLY LEASE: how many the workers hold at the due instant (the rest are claimed in the drain).
    let heldAtDue: number | null = null;
    if (system === 'machinist' && PARKED_LEAD_MS > 0 && Date.now() < at) {
      if (process.env.BENCH_PARKED_SPLIT) {
        await sleep(at - 1000 - Date.now());
        log(`  held by each worker 1 s before the due time: ${await heldByWorker()}`);
      }
      await sleep(at - 20 - Date.now());
      heldAtDue = await redis.ctl.zcard(MACHINIST_ACTIVE_KEY);
    }
    await waitDone(doneKey, n, Math.max(120_000, at - Date.now() + n * 5));
    const scores = (await redis.ctl.zrange(doneKey, '0', '-1', 'WITHSCORES')).filter((_, i) => i % 2 === 1);
    const lateMs = scores.map((s) => Number(s) - at);
    const last = Math.max(...lateMs);
    // BENCH_PARKED_SHAPE=1: the drain's shape, the lateness at each tenth (ms).
    if (process.env.BENCH_PARKED_SHAPE)
      log(
        `  ${system} late by tenth: ${[0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((q) => fmt(percentile(lateMs, q))).join(' ')} ms`,
      );
    drain = { fromMs: at, toMs: at + last };
    return {
      parkedPerSec,
      memPerParkedBytes,
      resumedPerSec: (n * 1000) / Math.max(1, last),
      lateMs,
      parkedInTime,
      heldAtDue,
    };
  } finally {
    await workers.stop();
    if (profile && drain) {
      for (let i = 0; i < procs; i++) {
        const file = procs > 1 ? profile.replace(/(\.cpuprofile)?$/, `-${i}$1`) : profile;
        log(
          `  worker ${i}'s CPU over the drain (${fmt(drain.toMs - drain.fromMs)} ms from the due time), per job of its share:`,
        );
        log(analyzeProfile(file, n / procs, 25, drain));
      }
    }
  }
}

export async function parkedWorkload(): Promise<void> {
  const lead =
    PARKED_LEAD_MS > 0 ? `, lead ${PARKED_LEAD_MS / 1000} s hold ${PARKED_HOLD.toLocaleString('en-US')}` : '';
  for (const n of PARKED_SIZES) {
    const k = size(n);
    for (const procs of PARKED_PROCS) {
      log(
        `\n== 15. ${n.toLocaleString('en-US')} pipelines parked on an \`after\` timer, all due at once, ${procs} worker process${procs === 1 ? '' : 'es'} (c=100 each${lead}) vs BullMQ delayed jobs`,
      );
      // The one-process rows keep their names; with more, the memory and park rate are the same
      // store's and only the resume is named apart.
      // The early lease's rows say its lead (round nine on): their figures are not the same measure.
      const name = (procs === 1 ? `${k} parked` : `${k} parked, ${procs} procs`) + lead;
      for (const system of orderFor(0)) {
        const r = await parkedRun(system, n, procs);
        const p50 = percentile(r.lateMs, 50);
        const p99 = percentile(r.lateMs, 99);
        if (procs === 1) {
          row('15', `${name}: Redis memory per parked job`, 'bytes', 'lower').samples[system].push(
            r.memPerParkedBytes,
          );
          row('15', `${name}: park rate`, 'jobs/s', 'higher').samples[system].push(r.parkedPerSec);
        }
        row('15', `${name}: resume rate, all due at once`, 'jobs/s', 'higher').samples[system].push(
          r.resumedPerSec,
        );
        row('15', `${name}: late p50`, 'ms', 'lower').samples[system].push(p50);
        row('15', `${name}: late p99`, 'ms', 'lower').samples[system].push(p99);
        log(
          `  ${system.padEnd(9)} ${fmt(r.memPerParkedBytes)} B/parked job, parked ${fmt(r.parkedPerSec)}/s${r.parkedInTime ? '' : ' (NOT all before due)'}, resumed ${fmt(r.resumedPerSec)}/s${r.heldAtDue === null ? '' : `, ${fmt(r.heldAtDue)} held at the due time`}, late p50 ${fmt(p50)} ms p99 ${fmt(p99)} ms (load ${load()})`,
        );
      }
    }
  }
}

export async function growthWorkload(): Promise<void> {
  log(
    `\n== 16. cost growth: ${GROWTH_SIZES.map(size).join(', ')} no-op jobs queued (enqueueMany / addBulk), then finished (c=100, 1 proc, kept)`,
  );
  for (const n of GROWTH_SIZES) {
    const k = size(n);
    for (const system of orderFor(0)) {
      const r = await processRun(system, { procs: 1, concurrency: 100, n });
      row('16', `${k} queued: enqueue time per job`, 'us', 'lower').samples[system].push(
        1e6 / r.enqueueJobsPerSec,
      );
      row('16', `${k} queued: Redis memory per queued job`, 'bytes', 'lower').samples[system].push(
        r.queuedMemPerJobBytes,
      );
      row('16', `${k} finished: processing time per job (c=100)`, 'us', 'lower').samples[system].push(
        1e6 / r.jobsPerSec,
      );
      row('16', `${k} finished: Redis memory per finished job kept`, 'bytes', 'lower').samples[system].push(
        r.memPerJobBytes,
      );
      row('16', `${k} finished: Redis CPU per job`, 'us', 'lower').samples[system].push(r.redisCpuUsPerJob);
      log(
        `  ${k.padStart(5)} ${system.padEnd(9)} enqueue ${fmt(1e6 / r.enqueueJobsPerSec)} us/job, ${fmt(r.queuedMemPerJobBytes)} B/queued; process ${fmt(1e6 / r.jobsPerSec)} us/job, ${fmt(r.memPerJobBytes)} B/finished, Redis CPU ${fmt(r.redisCpuUsPerJob)} us/job (load ${load()})`,
      );
    }
  }
}

export async function fanBigWorkload(): Promise<void> {
  const k = size(FAN_BIG);
  log(
    `\n== 17. one parent -> ${FAN_BIG.toLocaleString('en-US')} children -> merge, one flow (c=100, 1 proc) vs a BullMQ FlowProducer flow`,
  );
  for (const system of orderFor(0)) {
    const { ms, memPerChildBytes } = await fanFlows(system, FAN_BIG, 1);
    row('17', `fan-out of ${k} children: enqueue to merged result`, 's', 'lower').samples[system].push(
      ms[0]! / 1000,
    );
    row('17', `fan-out of ${k} children: Redis memory per child kept`, 'bytes', 'lower').samples[system].push(
      memPerChildBytes,
    );
    log(
      `  ${system.padEnd(9)} ${(ms[0]! / 1000).toFixed(1)} s, ${fmt(memPerChildBytes)} B/child (load ${load()})`,
    );
  }
}
