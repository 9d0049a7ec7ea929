// Probe for bench/analysis.md (workload 3): each latency sample split at the enqueue's return,
// Machinist vs BullMQ, a worker (bench/worker.ts, c=10) in another process, 1,500 samples after
// 200 warm-up jobs, two repetitions each. Against a redis-server of your own (it is FLUSHALLed):
//
//   node --import tsx bench/probes/latencyParts.ts PORT

import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { openSide } from '../sides.js';
import type { SystemName, WorkerConfig } from '../common.js';

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
    const side = openSide(system, { host, port });
    const { enqueue, total } = await side.latency(SAMPLES, WARMUP);
    const rest = total.map((t, i) => t - enqueue[i]!);
    await side.close();
    await stop();
    console.log(
      `${system.padEnd(9)} enqueue p50 ${quantile(enqueue, 0.5)} p99 ${quantile(enqueue, 0.99)} ms | to the result p50 ${quantile(rest, 0.5)} p99 ${quantile(rest, 0.99)} ms`,
    );
  }
}
ctl.disconnect();
