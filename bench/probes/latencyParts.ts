// Probe for bench/analysis.md (workload 3): each latency sample split at the enqueue's return,
// Machinist vs BullMQ, a worker (bench/worker.ts, c=10) in another process, 1,500 samples after
// 200 warm-up jobs, two repetitions each. Against a redis-server of your own (it is FLUSHALLed):
//
//   node --import tsx bench/probes/latencyParts.ts PORT

import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { Queue, QueueEvents } from 'bullmq';
import { Client, RedisStore, defineJob } from '../../src/index.js';
import { JOB_NAME, MACHINIST_PREFIX, QUEUE, type SystemName, type WorkerConfig } from '../common.js';

const port = Number(process.argv[2]);
if (!Number.isInteger(port)) throw new Error(`usage: latencyParts.ts PORT (got ${process.argv[2]})`);
const host = '127.0.0.1';
const SAMPLES = 1500;
const WARMUP = 200;

async function startWorker(system: SystemName): Promise<() => Promise<void>> {
  const cfg: WorkerConfig = { system, host, port, concurrency: 10 };
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/worker.ts', JSON.stringify(cfg)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((r) => child.on('message', (m: { type: string }) => m.type === 'ready' && r()));
  child.send({ cmd: 'go' });
  return async () => {
    child.send({ cmd: 'stop' });
    await new Promise((r) => child.once('exit', r));
  };
}

/** One sample: [enqueue round trip, enqueue returned -> result in hand], ms. */
function sampler(system: SystemName): {
  sample: () => Promise<[number, number]>;
  close: () => Promise<void>;
} {
  if (system === 'machinist') {
    const store = new RedisStore({ url: `redis://${host}:${port}`, prefix: MACHINIST_PREFIX });
    const client = new Client({
      store,
      jobs: [defineJob({ name: JOB_NAME, work: async () => undefined })],
      queue: QUEUE,
    });
    return {
      sample: async () => {
        const t0 = performance.now();
        const id = await client.enqueue(JOB_NAME, {});
        const t1 = performance.now();
        await client.waitForResult(id, { queue: QUEUE });
        return [t1 - t0, performance.now() - t1];
      },
      close: async () => {
        client.close();
        await store.close();
      },
    };
  }
  const queue = new Queue(QUEUE, { connection: { host, port } });
  const events = new QueueEvents(QUEUE, { connection: { host, port } });
  return {
    sample: async () => {
      await events.waitUntilReady();
      const t0 = performance.now();
      const job = await queue.add(JOB_NAME, {}, { removeOnComplete: false });
      const t1 = performance.now();
      await job.waitUntilFinished(events, 10_000);
      return [t1 - t0, performance.now() - t1];
    },
    close: async () => {
      await events.close();
      await queue.close();
    },
  };
}

function quantile(xs: number[], p: number): string {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!.toFixed(3);
}

const ctl = new Redis({ host, port });
for (let rep = 0; rep < 2; rep++) {
  for (const system of ['machinist', 'bullmq'] as const) {
    await ctl.flushall();
    const stop = await startWorker(system);
    await new Promise((r) => setTimeout(r, 300));
    const s = sampler(system);
    const enqueue: number[] = [];
    const rest: number[] = [];
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      const [a, b] = await s.sample();
      if (i < WARMUP) continue;
      enqueue.push(a);
      rest.push(b);
    }
    await s.close();
    await stop();
    console.log(
      `${system.padEnd(9)} enqueue p50 ${quantile(enqueue, 0.5)} p99 ${quantile(enqueue, 0.99)} ms | to the result p50 ${quantile(rest, 0.5)} p99 ${quantile(rest, 0.99)} ms`,
    );
  }
}
ctl.disconnect();
