// A bench worker process: one Machinist Supervisor or one BullMQ Worker processing no-op jobs.
// Protocol (IPC): sends 'ready' once connected; starts processing on 'go'; on 'stop' reports
// its CPU time since 'go' and its peak RSS, shuts down and exits. With `heapEvery` (workload 9)
// it also sends a 'heap' sample every `heapEvery` jobs.

import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { RedisStore, Supervisor, defineJob } from '../src/index.js';
import { fanMerge, parkUntil, threeSteps, threeStepsYield } from './machines.js';
import {
  FAN_NAME,
  JOB_NAME,
  MACHINIST_PREFIX,
  QUEUE,
  type FromWorker,
  type ToWorker,
  type WorkerConfig,
} from './common.js';

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;

function send(m: FromWorker): void {
  process.send?.(m);
}

interface Runner {
  go(): Promise<void>;
  stop(): Promise<void>;
}

/** Workload 9: counts jobs and reports heapUsed after a full GC every `every` jobs. */
function heapSampler(every: number): () => Promise<undefined> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('heapEvery needs the worker to run with --expose-gc');
  let jobs = 0;
  const sample = () => {
    gc();
    send({ type: 'heap', jobs, heapUsedBytes: process.memoryUsage().heapUsed });
  };
  return async () => {
    // Taken after the job's turn of the event loop, not inside it (a full GC takes ~10-50 ms).
    if (++jobs % every === 0) setImmediate(sample);
    return undefined;
  };
}

/** Workloads 12-14: the no-op (or a sleep of `jobMs`) that reports its start and end to the parent. */
function recorder(jobMs = 0): (input: { key?: string } | undefined) => Promise<undefined> {
  return async (input) => {
    const start = Date.now();
    if (jobMs > 0) await new Promise((r) => setTimeout(r, jobMs));
    send({ type: 'job', start, end: Date.now(), key: input?.key });
    return undefined;
  };
}

async function machinist(): Promise<Runner> {
  const heap = config.heapEvery !== undefined;
  const store = new RedisStore({
    ...(config.cluster
      ? { cluster: { nodes: config.cluster } }
      : { url: `redis://${config.host}:${config.port}` }),
    prefix: MACHINIST_PREFIX,
    // Workload 9 runs millions of jobs: keep Redis's data set small (the reaper sweeps them),
    // at the shortest retention the supervisor below takes (leaseMs + reaperIntervalMs).
    finishedTtlMs: heap ? 31_000 : undefined,
  });
  const record = config.record ? recorder(config.record.jobMs) : undefined;
  const noop = defineJob({
    name: JOB_NAME,
    work: heap
      ? heapSampler(config.heapEvery!)
      : record
        ? ({ input }: { input: { key?: string } }) => record(input)
        : async () => undefined,
  });
  const sup = new Supervisor({
    store,
    jobs: [noop, threeSteps, threeStepsYield, fanMerge, parkUntil],
    // One supervisor serves every queue (workload 10): a partitioned queue's name serves its partitions.
    queues: config.queues ?? [QUEUE],
    concurrency: config.concurrency,
    leaseMs: 30_000,
    heartbeatMs: 10_000,
    reaperIntervalMs: heap ? 1_000 : 5_000,
    ...(config.early ?? {}),
  });
  await store.redis.ping();
  return {
    go: () => sup.start(),
    stop: async () => {
      await sup.stop({ graceMs: 2_000 });
      await store.close();
    },
  };
}

async function bullmq(): Promise<Runner> {
  // The flow's parent merges its children's results, like Machinist's fan-in.
  const record = config.record ? recorder(config.record.jobMs) : undefined;
  const processor = async (job: {
    name: string;
    data: { key?: string } | undefined;
    getChildrenValues(): Promise<Record<string, unknown>>;
  }) =>
    job.name === FAN_NAME
      ? Object.keys(await job.getChildrenValues()).length
      : record
        ? record(job.data)
        : undefined;
  // On a cluster (workload 10), as BullMQ's docs tell: one Worker per queue, its prefix the
  // queue's hash tag so each queue's keys share one slot; the concurrency is split between them,
  // so the process holds as many jobs in flight as Machinist's one supervisor.
  const queues = config.queues ?? [QUEUE];
  const cluster = config.cluster
    ? new Cluster(config.cluster, { redisOptions: { maxRetriesPerRequest: null } })
    : undefined;
  cluster?.on('error', () => {});
  const workers = queues.map(
    (q, i) =>
      new Worker(q, processor, {
        connection: cluster ?? { host: config.host, port: config.port },
        ...(cluster ? { prefix: `{${q}}` } : {}),
        concurrency: Math.ceil((config.concurrency - i) / queues.length),
        ...(config.limiter ? { limiter: config.limiter } : {}),
        autorun: false,
      }),
  );
  for (const w of workers) {
    w.on('error', () => {});
    await w.waitUntilReady();
  }
  let running: Promise<void>[] = [];
  return {
    go: async () => {
      running = workers.map((w) => w.run().catch(() => {}));
    },
    stop: async () => {
      await Promise.all(workers.map((w) => w.close(true)));
      await Promise.all(running);
      cluster?.disconnect();
    },
  };
}

async function main(): Promise<void> {
  const runner = config.system === 'machinist' ? await machinist() : await bullmq();
  let cpu0: NodeJS.CpuUsage | undefined;
  let session: Session | undefined;
  let profileWallStartMs = 0;
  process.on('message', (m: ToWorker) => {
    void (async () => {
      if (m.cmd === 'go') {
        if (config.cpuProfile) {
          session = new Session();
          session.connect();
          await session.post('Profiler.setSamplingInterval', { interval: 100 });
          await session.post('Profiler.enable');
          await session.post('Profiler.start');
          // The wall clock at the profile's start: a window of it can be read (profile.ts).
          profileWallStartMs = Date.now();
        }
        cpu0 = process.cpuUsage();
        await runner.go();
      } else if (m.cmd === 'stop') {
        const cpu = process.cpuUsage(cpu0);
        const maxRssBytes = process.resourceUsage().maxRSS * 1024;
        if (session && config.cpuProfile) {
          const { profile } = await session.post('Profiler.stop');
          writeFileSync(config.cpuProfile, JSON.stringify({ ...profile, wallStartMs: profileWallStartMs }));
          session.disconnect();
        }
        send({ type: 'stats', cpuUs: cpu.user + cpu.system, maxRssBytes });
        const hard = setTimeout(() => process.exit(0), 5_000);
        try {
          await runner.stop();
        } finally {
          clearTimeout(hard);
          process.exit(0);
        }
      }
    })();
  });
  send({ type: 'ready' });
}

main().catch((err) => {
  console.error('bench worker failed:', err);
  process.exit(1);
});
