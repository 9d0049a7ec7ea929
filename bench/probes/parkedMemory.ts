// Probe for issue 25: workload 15's and 16's memory figures without their clocks. Redis memory
// (used_memory delta / N) per job for N of workload 15's pipelines parked on a timer an hour away
// (all of them parked, however slowly the machine parks them), N no-op jobs queued, and N no-op
// jobs finished and kept. A loaded machine changes none of these figures; workload 15's own
// memory row is only valid when all parked before the due time it picked.
//
//   node --import tsx bench/probes/parkedMemory.ts PORT [N]     FLUSHALL on a redis-server of your own

import { Redis } from 'ioredis';
import { Client, RedisStore, Supervisor, defineJob } from '../../src/index.js';
import { parkUntil } from '../machines.js';
import { JOB_NAME } from '../common.js';
import { usedMemory } from '../redis.js';

const port = Number(process.argv[2]);
const N = Number(process.argv[3] ?? 10_000);
const url = `redis://127.0.0.1:${port}`;
const raw = new Redis(url);
const noop = defineJob({ name: JOB_NAME, work: async () => undefined });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function perJob(
  kind: 'parked' | 'queued' | 'finished',
  until: () => Promise<boolean>,
  enqueue: (c: Client) => Promise<void>,
): Promise<number> {
  await raw.flushall();
  const store = new RedisStore({ url, prefix: 'mb' });
  const client = new Client({ store, jobs: [noop, parkUntil], queue: 'q' });
  const sup =
    kind === 'queued'
      ? undefined
      : new Supervisor({ store, jobs: [noop, parkUntil], queues: ['q'], concurrency: 100 });
  await sup?.start();
  await client.get('x').catch(() => null); // the store's first write stamps the format: before mem0
  await sleep(500);
  const mem0 = await usedMemory(raw);
  await enqueue(client);
  while (!(await until())) await sleep(50);
  const bytes = ((await usedMemory(raw)) - mem0) / N;
  await sup?.stop({ graceMs: 1000 });
  client.close();
  await store.close();
  return bytes;
}

const batches = async (c: Client, make: () => { machine: string; input: unknown }) => {
  for (let i = 0; i < N; i += 1000) await c.enqueueMany(Array.from({ length: Math.min(1000, N - i) }, make));
};
const at = Date.now() + 3_600_000;
const parked = await perJob(
  'parked',
  async () => (await raw.zcard('mb:{q}:delayed')) >= N,
  (c) => batches(c, () => ({ machine: parkUntil.name, input: { at } })),
);
const queued = await perJob(
  'queued',
  // Since format 3 a queued job is in line in `queued` or THE READY LIST (`ready`).
  async () => (await raw.zcard('mb:{q}:queued')) + (await raw.llen('mb:{q}:ready')) >= N,
  (c) => batches(c, () => ({ machine: JOB_NAME, input: {} })),
);
const finished = await perJob(
  'finished',
  async () => (await raw.zcard('mb:{q}:done')) >= N,
  (c) => batches(c, () => ({ machine: JOB_NAME, input: {} })),
);
raw.disconnect();
const f = (b: number) => Math.round(b).toLocaleString('en-US');
console.log(
  `N=${N.toLocaleString('en-US')}: parked ${f(parked)} B/job, queued ${f(queued)} B/job, finished ${f(finished)} B/job; parked/finished ${(parked / finished).toFixed(2)}`,
);
