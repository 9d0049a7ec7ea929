// The benchmark suite: Machinist vs BullMQ on one private redis-server, alternating, median of
// REPS repetitions. Workers run in their own processes (bench/worker.ts).
//
//   npm run bench                      full run, writes bench/RESULTS.md
//   BENCH_QUICK=1 npm run bench        2,000 jobs, 1 repetition, prints only
//   BENCH_JOBS=50000 npm run bench     jobs per workload (default 20,000)
//   BENCH_ONLY=enqueue,latency ...     a subset: enqueue, throughput, latency, pipeline, fan, backlog, heap
//   BENCH_HEAP_JOBS=2000000 ...        jobs for workload 9 (worker heap; BENCH_HEAP_EVERY: sample every)
//   BENCH_BACKLOG=200000 ...           backlog for workload 8 (default 1,000,000, as issue 5 asks)
//   BENCH_SYSTEMS=machinist ...        one system only (a probe: ratios need both)
//   BENCH_REPS=5, BENCH_LATENCY_JOBS=5000, BENCH_FLOWS=10 ...   repetitions, latency samples, flows
//   npm run bench -- --profile         CPU profile + SLOWLOG of the c=100 workload -> bench/PROFILE.md
//
// Probes that answer one question each, with their figures in bench/analysis.md, live in
// bench/probes/ (queueStructure.sh: Redis instructions and cache misses per job under callgrind;
// latencyParts.ts: latency split at the enqueue's return).

import { spawn, execSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FlowProducer, QueueEvents } from 'bullmq';
import { Client, RedisStore } from '../src/index.js';
import { loadScripts } from '../src/store/redis/scripts.js';
import { decodeStreamEntries } from '../src/store/redis/decodeEvents.js';
import {
  BULL_COMPLETED_KEY,
  FAN_CHILDREN,
  FAN_NAME,
  JOB_NAME,
  PIPELINE_NAME,
  PIPELINE_YIELD_NAME,
  MACHINIST_DONE_KEY,
  MACHINIST_PREFIX,
  MACHINIST_QUEUED_KEY,
  QUEUE,
  type FromWorker,
  type SystemName,
  type WorkerConfig,
} from './common.js';
import { openSide } from './sides.js';
import type { FillConfig } from './fill.js';
import {
  commandStats,
  parseInfo,
  redisCpuSeconds,
  startRedis,
  usedMemory,
  type CommandStat,
  type PrivateRedis,
} from './redis.js';
import { analyzeProfile } from './profile.js';
import { fanMerge, threeSteps, threeStepsYield } from './machines.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const QUICK = process.env.BENCH_QUICK === '1';
const N = Number(process.env.BENCH_JOBS ?? (QUICK ? 2_000 : 20_000));
const REPS = Number(process.env.BENCH_REPS ?? (QUICK ? 1 : 3));
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? (QUICK ? 20_000 : 1_000_000));
// p99 of 300 samples was the 3rd-worst sample, and 20 warm-up jobs left the first few hundred
// samples in JIT warm-up (their p99 was 2-4x the last quarter's): 2,000 samples after 200.
const LATENCY_JOBS = Number(process.env.BENCH_LATENCY_JOBS ?? (QUICK ? 100 : 2_000));
const LATENCY_WARMUP = QUICK ? 20 : 200;
/** Workload 9: jobs through one worker while its heap is sampled, and how often (after GC). */
const HEAP_JOBS = Number(process.env.BENCH_HEAP_JOBS ?? (QUICK ? 200_000 : 2_000_000));
const HEAP_EVERY = Number(process.env.BENCH_HEAP_EVERY ?? (QUICK ? 25_000 : 250_000));
/** Workload 9 feeds the queue in batches, keeping at most this many waiting (Redis stays small). */
const HEAP_BACKLOG = 20_000;
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
const PROFILE = process.argv.includes('--profile');
const WRITE =
  process.env.BENCH_WRITE === '1' || (!QUICK && !ONLY && !PROFILE && process.env.BENCH_WRITE !== '0');
const SYSTEMS: SystemName[] = ['machinist', 'bullmq'];
const ENQ_IN_FLIGHT = 100;
const BULK = 1_000;
/** Workload 8's control: the backlog's jobs queued here instead, where no worker looks. */
const OTHER_QUEUE = 'bench-other';

let redis: PrivateRedis;

// ---------------------------------------------------------------------------------------------
// Worker processes.

interface WorkerStats {
  cpuUs: number;
  maxRssBytes: number;
}

interface Workers {
  go(): void;
  stop(): Promise<WorkerStats[]>;
}

async function spawnWorkers(
  system: SystemName,
  procs: number,
  concurrency: number,
  cpuProfile?: string,
  mode: WorkerConfig['mode'] = 'noop',
  heap?: { every: number; onSample: (jobs: number, heapUsedBytes: number) => void },
): Promise<Workers> {
  const children: ChildProcess[] = [];
  const ready: Promise<void>[] = [];
  const stats: Promise<WorkerStats>[] = [];
  for (let i = 0; i < procs; i++) {
    const cfg: WorkerConfig = {
      system,
      host: redis.host,
      port: redis.port,
      concurrency,
      cpuProfile,
      mode,
      heapEvery: heap?.every,
    };
    const node = ['--import', 'tsx', ...(heap ? ['--expose-gc'] : [])];
    const child = spawn(process.execPath, [...node, join(HERE, 'worker.ts'), JSON.stringify(cfg)], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    if (heap)
      child.on('message', (m: FromWorker) => m.type === 'heap' && heap.onSample(m.jobs, m.heapUsedBytes));
    children.push(child);
    ready.push(
      new Promise((resolve, reject) => {
        child.on('message', (m: FromWorker) => m.type === 'ready' && resolve());
        child.once('exit', (code) => reject(new Error(`${system} worker exited with ${code} before ready`)));
      }),
    );
    stats.push(
      new Promise((resolve, reject) => {
        child.on('message', (m: FromWorker) => m.type === 'stats' && resolve(m));
        child.once('exit', (code) => reject(new Error(`${system} worker exited with ${code} without stats`)));
      }),
    );
  }
  await Promise.all(ready);
  return {
    go: () => children.forEach((c) => c.send({ cmd: 'go' })),
    stop: async () => {
      children.forEach((c) => c.send({ cmd: 'stop' }));
      const out = await Promise.all(stats);
      await Promise.all(
        children.filter((c) => c.exitCode === null).map((c) => new Promise((r) => c.once('exit', r))),
      );
      return out;
    },
  };
}

let polls = 0;
async function waitDone(key: string, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    polls++;
    if ((await redis.ctl.zcard(key)) >= n) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} jobs in ${key}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

// ---------------------------------------------------------------------------------------------
// One processing run: fill, start workers, time until `n` jobs are done.

interface RunResult {
  jobsPerSec: number;
  /** Redis figures over enqueue + processing (meaningful when backlog is 0). */
  cmdsPerJob: number;
  cmds: Map<string, CommandStat>;
  redisCpuUsPerJob: number;
  /** Redis CPU per job from go to the last job done (the enqueue left out). */
  processingRedisCpuUsPerJob: number;
  /** The bench process's own CPU per job over the same window (it only polls ZCARD). */
  parentCpuUsPerJob: number;
  memPerJobBytes: number;
  workerCpuUsPerJob: number;
  workerMaxRssBytes: number;
}

/** Runs bench/fill.ts: `n` jobs onto `queue`, from a process that has exited when this returns. */
async function fillInChild(system: SystemName, queue: string, n: number): Promise<void> {
  const cfg: FillConfig = { system, host: redis.host, port: redis.port, queue, n, batch: BULK };
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'fill.ts'), JSON.stringify(cfg)], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench/fill.ts exited with ${code} (${system}, ${queue}, ${n} jobs)`);
}

async function processRun(
  system: SystemName,
  o: {
    procs: number;
    concurrency: number;
    n: number;
    backlog?: number;
    /** Jobs queued on another queue (nobody serves it) after the `n`: workload 8's control. */
    otherQueueBacklog?: number;
    /** Enqueue from a child process (bench/fill.ts), so this one has no enqueue garbage to collect
     * while the run is timed (workload 8, where the enqueue is 1,000,000 jobs). */
    fillInChild?: boolean;
    cpuProfile?: string;
    /** Start the workers after the enqueue (workload 8): else they idle through a long enqueue,
     * and a worker idle for ~9 s runs ~25% slower at first, backlog or not (bench/analysis.md). */
    spawnAfterEnqueue?: boolean;
  },
): Promise<RunResult> {
  await redis.ctl.flushall();
  let workers = o.spawnAfterEnqueue
    ? undefined
    : await spawnWorkers(system, o.procs, o.concurrency, o.cpuProfile);
  const side = openSide(system, redis);
  try {
    await redis.ctl.config('RESETSTAT');
    const mem0 = await usedMemory(redis.ctl);
    const cpu0 = await redisCpuSeconds(redis.ctl);
    polls = 0;
    if (o.fillInChild) await fillInChild(system, QUEUE, o.n + (o.backlog ?? 0));
    else await side.enqueueBulk(o.n + (o.backlog ?? 0), BULK);
    if (o.otherQueueBacklog) await fillInChild(system, OTHER_QUEUE, o.otherQueueBacklog);
    workers ??= await spawnWorkers(system, o.procs, o.concurrency, o.cpuProfile);
    const cpuGo = await redisCpuSeconds(redis.ctl);
    const parentCpu0 = process.cpuUsage();
    const t0 = performance.now();
    workers.go();
    await waitDone(side.doneKey, o.n, Math.max(120_000, o.n * 5));
    const secs = (performance.now() - t0) / 1000;
    const parentCpu = process.cpuUsage(parentCpu0);
    const cpu1 = await redisCpuSeconds(redis.ctl);
    const mem1 = await usedMemory(redis.ctl);
    const cmds = await commandStats(redis.ctl);
    const ws = await workers.stop();
    // Leave out the harness's own commands: INFO, CONFIG RESETSTAT and the ZCARD polls.
    cmds.delete('info');
    cmds.delete('config|resetstat');
    const z = cmds.get('zcard');
    if (z) {
      z.calls -= polls;
      if (z.calls <= 0) cmds.delete('zcard');
    }
    const total = [...cmds.values()].reduce((s, c) => s + c.calls, 0);
    return {
      jobsPerSec: o.n / secs,
      cmdsPerJob: total / o.n,
      cmds,
      redisCpuUsPerJob: ((cpu1 - cpu0) * 1e6) / o.n,
      processingRedisCpuUsPerJob: ((cpu1 - cpuGo) * 1e6) / o.n,
      parentCpuUsPerJob: (parentCpu.user + parentCpu.system) / o.n,
      memPerJobBytes: (mem1 - mem0) / o.n,
      workerCpuUsPerJob: ws.reduce((s, w) => s + w.cpuUs, 0) / o.n,
      workerMaxRssBytes: Math.max(...ws.map((w) => w.maxRssBytes)),
    };
  } finally {
    await side.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Results.

interface Row {
  workload: string;
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  samples: Record<SystemName, number[]>;
  pending?: boolean;
}

const rows: Row[] = [];
const cmdBreakdown: Record<SystemName, Map<string, CommandStat>[]> = { machinist: [], bullmq: [] };

function row(workload: string, metric: string, unit: string, better: 'higher' | 'lower'): Row {
  let r = rows.find((x) => x.workload === workload && x.metric === metric);
  if (!r) rows.push((r = { workload, metric, unit, better, samples: { machinist: [], bullmq: [] } }));
  return r;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

function fmt(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '-';
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

function stat(xs: number[]): { med: number; min: number; max: number } | undefined {
  if (xs.length === 0) return undefined;
  return { med: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

function cell(xs: number[]): string {
  const s = stat(xs);
  if (!s) return '-';
  return xs.length > 1 ? `${fmt(s.med)} (${fmt(s.min)}–${fmt(s.max)})` : fmt(s.med);
}

function ratioOf(r: Row): number | undefined {
  const m = stat(r.samples.machinist);
  const b = stat(r.samples.bullmq);
  return m && b && b.med !== 0 ? m.med / b.med : undefined;
}

function table(): string {
  const lines = [
    '| # | workload / metric | unit | Machinist median (min–max) | BullMQ median (min–max) | M/B | better |',
    '|---|---|---|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    if (r.pending) {
      lines.push(`| ${r.workload} | ${r.metric} | - | pending | pending | - | - |`);
      continue;
    }
    const ratio = ratioOf(r);
    lines.push(
      `| ${r.workload} | ${r.metric} | ${r.unit} | ${cell(r.samples.machinist)} | ${cell(r.samples.bullmq)} | ${ratio === undefined ? '-' : ratio.toFixed(2) + 'x'} | ${r.better} |`,
    );
  }
  return lines.join('\n');
}

function find(metric: string): Row | undefined {
  return rows.find((r) => r.metric === metric);
}

function targets(): string {
  const out: string[] = ['| target | figure | verdict |', '|---|---|---|'];
  const ratioTarget = (name: string, metric: string, want: number, dir: '>=' | '<=') => {
    const r = find(metric);
    const x = r ? ratioOf(r) : undefined;
    if (x === undefined) {
      out.push(`| ${name} | not measured | - |`);
      return;
    }
    const ok = dir === '>=' ? x >= want : x <= want;
    const by = dir === '>=' ? ((want - x) / want) * 100 : ((x - want) / want) * 100;
    out.push(
      `| ${name} | ${x.toFixed(2)}x (want ${dir} ${want}x) | ${ok ? 'met' : `**missed** by ${by.toFixed(0)}%`} |`,
    );
  };
  const absTarget = (name: string, metric: string, want: number, unit: string) => {
    const r = find(metric);
    const s = r ? stat(r.samples.machinist) : undefined;
    if (!s) {
      out.push(`| ${name} | not measured | - |`);
      return;
    }
    const ok = s.med <= want;
    out.push(
      `| ${name} | ${fmt(s.med)} ${unit} (want <= ${want}) | ${ok ? 'met' : `**missed** by ${(((s.med - want) / want) * 100).toFixed(0)}%`} |`,
    );
  };
  ratioTarget('throughput c=100, 1 worker process: >= 1.5x', 'throughput c=100, 1 proc', 1.5, '>=');
  ratioTarget('throughput c=10, 1 worker process: >= 1.25x', 'throughput c=10, 1 proc', 1.25, '>=');
  {
    const a = find('throughput c=100, 1 proc');
    const b = find('throughput c=100, 2 procs');
    const ra = a ? ratioOf(a) : undefined;
    const rb = b ? ratioOf(b) : undefined;
    if (ra === undefined || rb === undefined)
      out.push('| best process count (1 or 2, same for both): >= 2x | not measured | - |');
    else {
      const best = Math.max(ra, rb);
      const which = rb > ra ? '2 procs' : '1 proc';
      out.push(
        `| best process count (1 or 2, same for both): >= 2x | ${best.toFixed(2)}x at ${which} | ${best >= 2 ? 'met' : `**missed** by ${(((2 - best) / 2) * 100).toFixed(0)}%`} |`,
      );
    }
  }
  ratioTarget('worker CPU per job below BullMQ', 'worker CPU per job (c=100)', 1, '<=');
  ratioTarget('enqueueMany >= 3x addBulk', 'enqueueMany, batches of 1,000', 3, '>=');
  ratioTarget('single enqueue >= 1.5x add', 'enqueue, 100 in flight', 1.5, '>=');
  ratioTarget('latency p50 no worse', 'latency p50', 1, '<=');
  ratioTarget('latency p99 no worse', 'latency p99', 1, '<=');
  absTarget('Redis commands per job <= 12', 'Redis commands per job (enqueue+claim+finish)', 12, 'commands');
  absTarget('Redis CPU per job <= 25 us', 'Redis CPU per job', 25, 'us');
  ratioTarget('Redis memory per kept finished job <= BullMQ', 'Redis memory per finished job kept', 1, '<=');
  {
    const r = find('backlog/empty throughput');
    const s = r ? stat(r.samples.machinist) : undefined;
    if (!s) out.push('| backlog throughput within 10% of empty | not measured | - |');
    else
      out.push(
        `| backlog (${BACKLOG.toLocaleString('en-US')}) throughput within 10% of empty | ${(s.med * 100).toFixed(0)}% of empty (want >= 90%) | ${s.med >= 0.9 ? 'met' : `**missed** by ${((0.9 - s.med) * 100).toFixed(0)} points`} |`,
      );
  }
  ratioTarget(
    '3-step pipeline >= BullMQ single-step no-op throughput',
    '3-step pipeline (M) vs single-step no-op (B), c=100',
    1,
    '>=',
  );
  ratioTarget(
    `fan-out/fan-in of ${FAN_CHILDREN.toLocaleString('en-US')} children >= 2x BullMQ flows`,
    `fan-out/fan-in, ${FAN_CHILDREN.toLocaleString('en-US')} children`,
    2,
    '>=',
  );
  return out.join('\n');
}

function commandsTable(): string {
  const lines: string[] = [];
  for (const system of SYSTEMS) {
    const runs = cmdBreakdown[system];
    if (runs.length === 0) continue;
    const names = new Set(runs.flatMap((m) => [...m.keys()]));
    const perJob = [...names]
      .map((name) => ({
        name,
        calls: median(runs.map((m) => m.get(name)?.calls ?? 0)) / N,
        usec: median(runs.map((m) => m.get(name)?.usec ?? 0)) / N,
      }))
      .sort((a, b) => b.calls - a.calls);
    lines.push(
      `**${system}** (median of ${runs.length} runs, per job; usec = Redis's own timing, scripts include their inner commands)`,
    );
    lines.push('', '| command | calls/job | usec/job |', '|---|---:|---:|');
    for (const c of perJob.slice(0, 12))
      lines.push(`| ${c.name} | ${c.calls.toFixed(2)} | ${c.usec.toFixed(2)} |`);
    lines.push('');
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Workloads.

function orderFor(rep: number): SystemName[] {
  const only = process.env.BENCH_SYSTEMS?.split(',');
  const systems = only ? SYSTEMS.filter((s) => only.includes(s)) : SYSTEMS;
  return rep % 2 === 0 ? systems : [...systems].reverse();
}

function want(name: string): boolean {
  return !ONLY || ONLY.has(name);
}

function log(msg: string): void {
  process.stdout.write(msg + '\n');
}

async function enqueueWorkload(): Promise<void> {
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

async function throughputWorkload(): Promise<void> {
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
          cmdBreakdown[system].push(r.cmds);
          extra = `  cmds/job ${fmt(r.cmdsPerJob)}  redis cpu/job ${fmt(r.redisCpuUsPerJob)} us  mem/job ${fmt(r.memPerJobBytes)} B  worker cpu/job ${fmt(r.workerCpuUsPerJob)} us  rss ${fmt(r.workerMaxRssBytes / 1e6)} MB`;
        }
        log(`  rep ${rep + 1} ${system.padEnd(9)} ${metric.padEnd(26)} ${fmt(r.jobsPerSec)} jobs/s${extra}`);
      }
    }
  }
}

async function latencyWorkload(): Promise<void> {
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

async function backlogWorkload(): Promise<void> {
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
 * Workload 9: does a worker's memory grow with the jobs it has run? 2,000,000 no-op jobs through
 * one worker (c=100), fed in batches so that at most HEAP_BACKLOG wait; the worker reports
 * heapUsed right after a full GC every HEAP_EVERY jobs. The first sample is the warm-up: growth
 * is measured from it to the last one.
 */
async function heapWorkload(): Promise<void> {
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
      if ((await redis.ctl.zcard(MACHINIST_QUEUED_KEY)) > HEAP_BACKLOG) {
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

/**
 * Checkpoints written per job: the `checkpoint` entries of the queue's event stream (one per
 * write) for the last `sample` jobs done. Not the audit log: it names every state a job
 * settled in, also those whose checkpoints coalesced into a later write.
 */
async function checkpointsPerJob(sample = 50): Promise<number> {
  const ids = new Set(await redis.ctl.zrange(MACHINIST_DONE_KEY, String(-sample), '-1'));
  const key = `${MACHINIST_PREFIX}:{${QUEUE}}:events`;
  const entries = (await redis.ctl.xrevrange(key, '+', '-', 'COUNT', 50_000)) as [string, string[]][];
  const writes = decodeStreamEntries([[key, entries]]).filter(
    (e) => e.type === 'checkpoint' && ids.has(e.jobId),
  ).length;
  return ids.size ? writes / ids.size : NaN;
}

async function pipelineWorkload(): Promise<void> {
  log(
    `\n== 6. 3-step pipeline, a checkpoint per step (Machinist, ${N.toLocaleString('en-US')} jobs, c=100, 1 proc) vs BullMQ single-step no-op jobs`,
  );
  const metric = '3-step pipeline (M) vs single-step no-op (B), c=100';
  const yieldMetric =
    '3-step pipeline, steps yield: every checkpoint written (M) vs single-step no-op (B), c=100';
  const variants = [
    { name: PIPELINE_NAME, metric, def: threeSteps },
    { name: PIPELINE_YIELD_NAME, metric: yieldMetric, def: threeStepsYield },
  ];
  for (let rep = 0; rep < REPS; rep++) {
    for (const system of orderFor(rep)) {
      // BullMQ runs its single-step no-op once per repetition: the base of both Machinist rows.
      for (const v of system === 'machinist' ? variants : variants.slice(0, 1)) {
        await redis.ctl.flushall();
        // BENCH_PIPELINE_PROFILE=file: CPU profile of the Machinist pipeline worker, summarized here.
        const prof =
          system === 'machinist' && v === variants[0] ? process.env.BENCH_PIPELINE_PROFILE : undefined;
        const workers = await spawnWorkers(system, 1, 100, prof, 'pipeline');
        try {
          if (system === 'machinist') {
            const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
            const client = new Client({ store, jobs: [v.def], queue: QUEUE });
            for (let done = 0; done < N; done += BULK)
              await client.enqueueMany(
                Array.from({ length: Math.min(BULK, N - done) }, () => ({ machine: v.name, input: {} })),
              );
            client.close();
            await store.close();
          } else {
            const side = openSide(system, redis);
            await side.enqueueBulk(N, BULK);
            await side.close();
          }
          const t0 = performance.now();
          workers.go();
          await waitDone(
            system === 'machinist' ? MACHINIST_DONE_KEY : BULL_COMPLETED_KEY,
            N,
            Math.max(120_000, N * 5),
          );
          const rate = N / ((performance.now() - t0) / 1000);
          if (system === 'machinist') {
            row('6', v.metric, 'jobs/s', 'higher').samples.machinist.push(rate);
            const cps = await checkpointsPerJob();
            row('6', `checkpoints written per job (${v.name})`, 'writes', 'lower').samples.machinist.push(
              cps,
            );
            log(
              `  rep ${rep + 1} machinist ${v.name.padEnd(15)} ${fmt(rate)} jobs/s, ${cps.toFixed(2)} checkpoints/job`,
            );
          } else {
            for (const m of [metric, yieldMetric]) row('6', m, 'jobs/s', 'higher').samples.bullmq.push(rate);
            log(`  rep ${rep + 1} ${system.padEnd(9)} ${fmt(rate)} jobs/s`);
          }
        } finally {
          await workers.stop();
        }
        if (prof) log(analyzeProfile(prof, N));
      }
    }
  }
}

const FLOWS = Number(process.env.BENCH_FLOWS ?? (QUICK ? 3 : 5));

async function fanWorkload(): Promise<void> {
  log(
    `\n== 7. one parent -> ${FAN_CHILDREN.toLocaleString('en-US')} children -> merge (${FLOWS} flows one after another, c=100, 1 proc) vs a BullMQ FlowProducer flow`,
  );
  const metric = `fan-out/fan-in, ${FAN_CHILDREN.toLocaleString('en-US')} children`;
  for (let rep = 0; rep < REPS; rep++) {
    for (const system of orderFor(rep)) {
      await redis.ctl.flushall();
      const workers = await spawnWorkers(system, 1, 100, undefined, 'fan');
      workers.go();
      const ms: number[] = [];
      try {
        if (system === 'machinist') {
          const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
          const client = new Client({ store, jobs: [fanMerge], queue: QUEUE });
          for (let f = 0; f < FLOWS; f++) {
            const t0 = performance.now();
            const id = await client.enqueue(FAN_NAME, { n: FAN_CHILDREN });
            const rec = await client.waitForResult(id, { queue: QUEUE, timeoutMs: 60_000 });
            if (rec.status !== 'done' || rec.output !== FAN_CHILDREN)
              throw new Error(`fan flow ended ${rec.status} with ${JSON.stringify(rec.output)}`);
            ms.push(performance.now() - t0);
          }
          client.close();
          await store.close();
        } else {
          const connection = { host: redis.host, port: redis.port };
          const flows = new FlowProducer({ connection });
          const events = new QueueEvents(QUEUE, { connection });
          await events.waitUntilReady();
          for (let f = 0; f < FLOWS; f++) {
            const t0 = performance.now();
            const node = await flows.add({
              name: FAN_NAME,
              queueName: QUEUE,
              data: {},
              opts: { removeOnComplete: false },
              children: Array.from({ length: FAN_CHILDREN }, (_, i) => ({
                name: JOB_NAME,
                queueName: QUEUE,
                data: i,
                opts: { removeOnComplete: false },
              })),
            });
            const out = await node.job.waitUntilFinished(events, 60_000);
            if (out !== FAN_CHILDREN) throw new Error(`bullmq flow merged ${String(out)}`);
            ms.push(performance.now() - t0);
          }
          await events.close();
          await flows.close();
        }
      } finally {
        await workers.stop();
      }
      const rate = (FLOWS * 1000) / ms.reduce((a, b) => a + b, 0);
      row('7', metric, 'flows/s', 'higher').samples[system].push(rate);
      log(
        `  rep ${rep + 1} ${system.padEnd(9)} ${rate.toFixed(2)} flows/s (${ms.map((x) => x.toFixed(0)).join(', ')} ms)`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Machine and output.

function gitCommit(): string {
  try {
    const sha = execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim();
    const dirty = execSync('git status --porcelain -- src machines', { cwd: ROOT }).toString().trim()
      ? ' (src/ or machines/ modified)'
      : '';
    return sha + dirty;
  } catch {
    return 'unknown';
  }
}

/** The installed version of a package: the bench's own package first, then Machinist's. */
function pkgVersion(name: string): string {
  const at = [
    join(HERE, 'node_modules', name, 'package.json'),
    join(ROOT, 'node_modules', name, 'package.json'),
  ];
  try {
    return (
      JSON.parse(readFileSync(at.find((p) => existsSync(p)) ?? at[1]!, 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return '?';
  }
}

async function machine(): Promise<string[]> {
  const server = parseInfo(await redis.ctl.info('server'));
  return [
    `- CPU: ${cpus()[0]?.model ?? '?'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM; load average at start ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
    `- Node ${process.version}; Redis ${server.redis_version ?? '?'} (private redis-server on 127.0.0.1:${redis.port}, no persistence)`,
    `- bullmq ${pkgVersion('bullmq')}, xstate ${pkgVersion('xstate')}, ioredis ${pkgVersion('ioredis')}`,
    `- git commit ${gitCommit()}`,
    `- ${N.toLocaleString('en-US')} jobs per workload, ${REPS} repetitions (Machinist and BullMQ alternating, order swapped every repetition), backlog ${BACKLOG.toLocaleString('en-US')}, ${LATENCY_JOBS} latency samples per repetition`,
  ];
}

async function profileMode(): Promise<void> {
  const dir = join(HERE, 'profiles');
  mkdirSync(dir, { recursive: true });
  const shaToScript = new Map(
    loadScripts().map((s) => [createHash('sha1').update(s.lua).digest('hex'), s.name]),
  );
  const md: string[] = [
    '# Profile of the c=100 no-op workload',
    '',
    `Command: \`npm run bench -- --profile\` (${N.toLocaleString('en-US')} jobs, 1 worker process, concurrency 100). Generated by bench/run.ts.`,
    '',
    ...(await machine()),
    '',
  ];
  for (const system of SYSTEMS) {
    const file = join(dir, `${system}-c100.cpuprofile`);
    await redis.ctl.config('SET', 'slowlog-log-slower-than', '50');
    await redis.ctl.config('SET', 'slowlog-max-len', '100000');
    await redis.ctl.slowlog('RESET');
    const r = await processRun(system, { procs: 1, concurrency: 100, n: N, cpuProfile: file });
    const slow = (await redis.ctl.slowlog('GET', 100000)) as [number, number, number, string[]][];
    log(
      `${system}: ${fmt(r.jobsPerSec)} jobs/s, worker CPU ${fmt(r.workerCpuUsPerJob)} us/job, Redis CPU ${fmt(r.redisCpuUsPerJob)} us/job, ${fmt(r.cmdsPerJob)} cmds/job`,
    );
    md.push(`## ${system}`, '');
    md.push(
      `${fmt(r.jobsPerSec)} jobs/s; worker CPU ${fmt(r.workerCpuUsPerJob)} us/job; Redis CPU ${fmt(r.redisCpuUsPerJob)} us/job (enqueue included); ${fmt(r.cmdsPerJob)} Redis commands/job; ${fmt(r.memPerJobBytes)} B Redis memory/job.`,
      '',
    );
    md.push('### Redis commands per job (INFO commandstats; enqueue + processing)', '');
    md.push('| command | calls/job | usec/job | usec/call |', '|---|---:|---:|---:|');
    for (const [name, c] of [...r.cmds.entries()].sort((a, b) => b[1].calls - a[1].calls).slice(0, 20)) {
      md.push(
        `| ${name} | ${(c.calls / N).toFixed(3)} | ${(c.usec / N).toFixed(2)} | ${(c.usec / Math.max(1, c.calls)).toFixed(1)} |`,
      );
    }
    md.push('', '### SLOWLOG (commands over 50 us), grouped', '');
    const groups = new Map<string, { n: number; total: number; max: number }>();
    for (const [, , us, args] of slow) {
      let name = String(args[0] ?? '?').toLowerCase();
      if (name === 'evalsha')
        name = `evalsha ${shaToScript.get(String(args[1])) ?? String(args[1]).slice(0, 8)}`;
      const g = groups.get(name) ?? { n: 0, total: 0, max: 0 };
      g.n++;
      g.total += us;
      g.max = Math.max(g.max, us);
      groups.set(name, g);
    }
    md.push('| command | entries | mean us | max us |', '|---|---:|---:|---:|');
    for (const [name, g] of [...groups.entries()].sort((a, b) => b[1].total - a[1].total).slice(0, 12)) {
      md.push(`| ${name} | ${g.n} | ${(g.total / g.n).toFixed(0)} | ${g.max} |`);
    }
    md.push('', '### Worker CPU profile (measured window only)', '', analyzeProfile(file, N), '');
  }
  await redis.ctl.config('SET', 'slowlog-log-slower-than', '10000');
  const { format, resolveConfig } = await import('prettier');
  const file = join(HERE, 'PROFILE.md');
  writeFileSync(file, await format(md.join('\n'), { ...(await resolveConfig(file)), parser: 'markdown' }));
  log(`wrote bench/PROFILE.md and ${dir}/*.cpuprofile`);
}

/** CPU time counters from /proc/stat (jiffies, all cores): `steal` is time the VM's host took. */
function cpuCounters(): { steal: number; total: number } | undefined {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { steal: f[7] ?? 0, total: f.slice(0, 8).reduce((a, b) => a + b, 0) };
  } catch {
    return undefined; // not Linux
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const cpuAtStart = cpuCounters();
  redis = await startRedis();
  try {
    const m = await machine();
    log('Machinist vs BullMQ benchmark\n' + m.join('\n'));
    if (PROFILE) return await profileMode();
    if (want('enqueue')) await enqueueWorkload();
    if (want('throughput')) await throughputWorkload();
    if (want('latency')) await latencyWorkload();
    if (want('pipeline')) await pipelineWorkload();
    if (want('fan')) await fanWorkload();
    if (want('backlog')) await backlogWorkload();
    if (want('heap')) await heapWorkload();
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    const cpuAtEnd = cpuCounters();
    const steal =
      cpuAtStart && cpuAtEnd
        ? `CPU steal over the run: ${(((cpuAtEnd.steal - cpuAtStart.steal) / Math.max(1, cpuAtEnd.total - cpuAtStart.total)) * 100).toFixed(1)}% of CPU time (time this VM's host gave to others; /proc/stat).`
        : 'CPU steal over the run: not known (no /proc/stat).';
    const body = [
      '## Results',
      '',
      table(),
      '',
      '## Targets (issue 5)',
      '',
      targets(),
      '',
      '## Redis commands by type (workload 4, c=100 runs)',
      '',
      commandsTable(),
    ].join('\n');
    log('\n' + body + `\n\n(run took ${minutes} min; ${steal})`);
    if (WRITE) {
      const analysisFile = join(HERE, 'analysis.md');
      const analysis = existsSync(analysisFile) ? readFileSync(analysisFile, 'utf8') : '';
      const env = [
        'BENCH_JOBS',
        'BENCH_REPS',
        'BENCH_BACKLOG',
        'BENCH_LATENCY_JOBS',
        'BENCH_FLOWS',
        'BENCH_SYSTEMS',
        'BENCH_HEAP_JOBS',
        'BENCH_HEAP_EVERY',
      ]
        .filter((k) => process.env[k])
        .map((k) => `${k}=${process.env[k]} `)
        .join('');
      writeFileSync(
        join(HERE, 'RESULTS.md'),
        [
          '# Benchmark results: Machinist vs BullMQ',
          '',
          `Generated by \`${env}npm run bench\` on ${new Date().toISOString()} (took ${minutes} min). Figures are medians of ${REPS} runs with min–max; M/B is Machinist / BullMQ of the medians.`,
          `The machine is a VM that may share its host: compare the ratios, not the absolute figures. ${steal}`,
          '',
          '## Machine',
          '',
          ...m,
          '',
          '## Method',
          '',
          '- One private `redis-server` (no persistence), FLUSHALL before every run. Workers are separate Node processes (`bench/worker.ts`); the client (enqueue, latency waits) is the parent process.',
          "- Throughput (2, 8): the queue is filled first with `enqueueMany`/`addBulk` (batches of 1,000), then the workers are told to go (for 8, in all its runs, the enqueue runs in a child process that has exited before the timed window, so the bench process has no enqueue garbage to collect during it, and the workers are started after the enqueue, so that the backlog run does not time workers that idled through a long enqueue; its control run queues the backlog's jobs on another queue that no worker serves, so Redis holds the same data set but this queue is as short as in the empty run); time until the done index (`ZCARD` of Machinist's done set / BullMQ's completed set) holds all the jobs. Both keep finished jobs (Machinist's 7-day retention, swept by its done index; BullMQ `removeOnComplete: false`).",
          "- Redis commands, Redis CPU and Redis memory (4, 5) come from the c=100, 1-process runs and cover the full cycle: the bulk enqueue and the processing. Commands are the sum of `INFO commandstats` calls (scripts and the commands they run inside both count), without the harness's own INFO/CONFIG/ZCARD polls. Redis CPU is the used_cpu_user+used_cpu_sys delta; memory is the used_memory delta with all jobs finished and kept.",
          '- Worker CPU is `process.cpuUsage()` of the worker process from go to the last job done, divided by jobs; peak RSS is `resourceUsage().maxRSS`.',
          '- Latency (3): one job at a time: enqueue, then wait for the result (`client.waitForResult` / `job.waitUntilFinished(QueueEvents)`), worker at concurrency 10 in another process; ' +
            `${LATENCY_WARMUP} warm-up jobs are not counted.`,
          "- Pipeline (6): Machinist runs a pipeline of three no-op `step`s (a checkpoint after each) at c=100, 1 process; BullMQ runs single-step no-op jobs the same way; jobs/s until all are done. A no-op step settles in the same event-loop turn, so a job's checkpoints coalesce into its final write (pipelined, not awaited: a crash re-runs the step); row 6b makes each step yield once (`setImmediate`), so every checkpoint is written. Checkpoints written per job are counted from the last 50 finished jobs' `checkpoint` entries in the queue's event stream (one per write; the audit log names every state, written or not). Fan-out (7): one parent fans out 1,000 no-op children and merges their results (Machinist `fanOut`; BullMQ a `FlowProducer` flow whose parent reads `getChildrenValues()`), 5 flows one after another, c=100, 1 process; flows/s = 5 / total time from enqueue to the parent's result.",
          `- Worker heap (9): ${HEAP_JOBS.toLocaleString('en-US')} no-op jobs through one Machinist worker (c=100), fed in batches of 1,000 while at most ${HEAP_BACKLOG.toLocaleString('en-US')} wait; the worker (node --expose-gc) reports \`heapUsed\` right after \`global.gc()\` every ${HEAP_EVERY.toLocaleString('en-US')} jobs. Growth is the last sample minus the first (the warm-up). Finished records are swept after 2 s so that Redis stays small. Machinist only.`,
          '',
          body,
          '',
          analysis,
        ].join('\n'),
      );
      log('wrote bench/RESULTS.md');
    }
  } finally {
    await redis.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
