// What every workload runs on: the private redis-server, worker processes (bench/worker.ts) and
// fill processes (bench/fill.ts), one timed processing run with its Redis and CPU figures, the
// order of the systems per repetition, and the CPU counters of the machine.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QUEUE, type FromWorker, type SystemName, type WorkerConfig } from './common.js';
import { BULK, HERE, ONLY, OTHER_QUEUE, ROOT, SYSTEMS, aofArgs, type AofMode } from './config.js';
import type { FillConfig } from './fill.js';
import { openSide, type Keyed, type PendingKey } from './sides.js';
import {
  commandStats,
  redisCpuSeconds,
  startRedis,
  usedMemory,
  type CommandStat,
  type PrivateRedis,
} from './redis.js';

/** The private redis-server of this run (startBenchRedis), and its persistence mode. */
export let redis: PrivateRedis;
export let aofMode: AofMode = 'off';

export async function startBenchRedis(mode: AofMode = 'off'): Promise<PrivateRedis> {
  redis = await startRedis(aofArgs(mode));
  aofMode = mode;
  return redis;
}

// ---------------------------------------------------------------------------------------------
// Worker processes.

/** How a bench child process runs: bench files through tsx, Machinist from dist/ (fromDist.mjs). */
const NODE_ARGS = ['--import', 'tsx', '--import', join(HERE, 'fromDist.mjs')];

interface WorkerStats {
  cpuUs: number;
  maxRssBytes: number;
}

interface Workers {
  go(): void;
  stop(): Promise<WorkerStats[]>;
}

export async function spawnWorkers(
  system: SystemName,
  procs: number,
  concurrency: number,
  cpuProfile?: string,
  mode: WorkerConfig['mode'] = 'noop',
  heap?: { every: number; onSample: (jobs: number, heapUsedBytes: number) => void },
  /** Workload 10: a cluster's seeds instead of the private redis-server, and the queues served;
   * workloads 12-14: BullMQ's limiter, and each job's start and end reported to `onJob`. */
  at: Pick<WorkerConfig, 'cluster' | 'queues' | 'limiter' | 'record' | 'early'> & {
    onJob?: (m: Extract<FromWorker, { type: 'job' }>) => void;
  } = {},
): Promise<Workers> {
  const { onJob, ...where } = at;
  const children: ChildProcess[] = [];
  const ready: Promise<void>[] = [];
  const stats: Promise<WorkerStats>[] = [];
  for (let i = 0; i < procs; i++) {
    const cfg: WorkerConfig = {
      system,
      host: redis.host,
      port: redis.port,
      concurrency,
      // One file per process when several are profiled (workload 11 profiles both supervisors).
      cpuProfile: cpuProfile && procs > 1 ? cpuProfile.replace(/(\.cpuprofile)?$/, `-${i}$1`) : cpuProfile,
      mode,
      heapEvery: heap?.every,
      ...where,
    };
    const node = [...NODE_ARGS, ...(heap ? ['--expose-gc'] : [])];
    const child = spawn(process.execPath, [...node, join(HERE, 'worker.ts'), JSON.stringify(cfg)], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    if (heap)
      child.on('message', (m: FromWorker) => m.type === 'heap' && heap.onSample(m.jobs, m.heapUsedBytes));
    if (onJob) child.on('message', (m: FromWorker) => m.type === 'job' && onJob(m));
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
/** The LLEN polls of a lean run (waitEmpty), left out of its command counts like `polls`. */
let llenPolls = 0;
export async function waitDone(key: string, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    polls++;
    if ((await redis.ctl.zcard(key)) >= n) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} jobs in ${key}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Until every key of `keys` is empty (ZCARD or LLEN by its type): a lean run's end (sides.ts). */
export async function waitEmpty(keys: PendingKey[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let left = 0;
    for (const { key, type } of keys) {
      if (type === 'zset') polls++;
      else llenPolls++;
      left += type === 'zset' ? await redis.ctl.zcard(key) : await redis.ctl.llen(key);
    }
    if (left === 0) return;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${keys.map((k) => k.key).join(', ')} to empty`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

// ---------------------------------------------------------------------------------------------
// One processing run: fill, start workers, time until `n` jobs are done.

export interface RunResult {
  jobsPerSec: number;
  /** The enqueue (before the workers go): its rate, and Redis memory per job queued. */
  enqueueJobsPerSec: number;
  queuedMemPerJobBytes: number;
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
  const child = spawn(process.execPath, [...NODE_ARGS, join(HERE, 'fill.ts'), JSON.stringify(cfg)], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench/fill.ts exited with ${code} (${system}, ${queue}, ${n} jobs)`);
}

export async function processRun(
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
    /** Workload 13: each job's key (sides.ts). */
    keyed?: Keyed;
    /** Workload 13: run on the emptied Redis before the enqueue (Machinist's queue limits). */
    setup?: () => Promise<void>;
    /** Workload 13: BullMQ's Worker rate limiter. */
    limiter?: WorkerConfig['limiter'];
    /** Workload 18: no finished record kept (sides.ts SideOptions); done when nothing is left. */
    lean?: boolean;
  },
): Promise<RunResult> {
  await redis.ctl.flushall();
  await o.setup?.();
  const spawn = () =>
    spawnWorkers(system, o.procs, o.concurrency, o.cpuProfile, 'noop', undefined, { limiter: o.limiter });
  let workers = o.spawnAfterEnqueue ? undefined : await spawn();
  const side = openSide(system, redis, undefined, { lean: o.lean });
  try {
    await redis.ctl.config('RESETSTAT');
    const mem0 = await usedMemory(redis.ctl);
    const cpu0 = await redisCpuSeconds(redis.ctl);
    polls = 0;
    llenPolls = 0;
    const tEnq = performance.now();
    if (o.fillInChild) await fillInChild(system, QUEUE, o.n + (o.backlog ?? 0));
    else await side.enqueueBulk(o.n + (o.backlog ?? 0), BULK, o.keyed);
    if (o.otherQueueBacklog) await fillInChild(system, OTHER_QUEUE, o.otherQueueBacklog);
    const enqueueSecs = (performance.now() - tEnq) / 1000;
    const memQueued = await usedMemory(redis.ctl);
    workers ??= await spawn();
    const cpuGo = await redisCpuSeconds(redis.ctl);
    const parentCpu0 = process.cpuUsage();
    const t0 = performance.now();
    workers.go();
    if (o.lean) await waitEmpty(side.pendingKeys, Math.max(120_000, o.n * 5));
    else await waitDone(side.doneKey, o.n, Math.max(120_000, o.n * 5));
    const secs = (performance.now() - t0) / 1000;
    const parentCpu = process.cpuUsage(parentCpu0);
    const cpu1 = await redisCpuSeconds(redis.ctl);
    const mem1 = await usedMemory(redis.ctl);
    const cmds = await commandStats(redis.ctl);
    const ws = await workers.stop();
    // Leave out the harness's own commands: INFO, CONFIG RESETSTAT and the ZCARD polls.
    cmds.delete('info');
    cmds.delete('config|resetstat');
    for (const [name, n] of [
      ['zcard', polls],
      ['llen', llenPolls],
    ] as const) {
      const c = cmds.get(name);
      if (!c) continue;
      c.calls -= n;
      if (c.calls <= 0) cmds.delete(name);
    }
    const total = [...cmds.values()].reduce((s, c) => s + c.calls, 0);
    const queued = o.n + (o.backlog ?? 0) + (o.otherQueueBacklog ?? 0);
    return {
      jobsPerSec: o.n / secs,
      enqueueJobsPerSec: queued / enqueueSecs,
      queuedMemPerJobBytes: (memQueued - mem0) / queued,
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

export function orderFor(rep: number): SystemName[] {
  const only = process.env.BENCH_SYSTEMS?.split(',');
  const systems = only ? SYSTEMS.filter((s) => only.includes(s)) : SYSTEMS;
  return rep % 2 === 0 ? systems : [...systems].reverse();
}

export function want(name: string): boolean {
  return !ONLY || ONLY.has(name);
}

export function log(msg: string): void {
  process.stdout.write(msg + '\n');
}

/** CPU time counters from /proc/stat (jiffies, all cores): `steal` is time the VM's host took. */
export function cpuCounters(): { steal: number; total: number } | undefined {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { steal: f[7] ?? 0, total: f.slice(0, 8).reduce((a, b) => a + b, 0) };
  } catch {
    return undefined; // not Linux
  }
}
