// The start the parked-record probes share (parkedLayouts.ts, parkedLevers.ts): N of workload 15's
// pipelines (parkUntil, an hour away) parked by a Supervisor on queue 'q', prefix 'mb', of a
// FLUSHALLed server; used_memory is read once the store's format is stamped and before the fill.

import type { Redis } from 'ioredis';
import { Client, RedisStore, Supervisor } from '../../src/index.js';
import { parkUntil } from '../machines.js';
import { usedMemory } from '../redis.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Parks `n`; `beforeFill` runs just before the memory base is read. Returns that base. */
export async function parkAll(
  raw: Redis,
  url: string,
  n: number,
  beforeFill?: () => Promise<void>,
): Promise<number> {
  await raw.flushall();
  const store = new RedisStore({ url, prefix: 'mb' });
  const client = new Client({ store, jobs: [parkUntil], queue: 'q' });
  const sup = new Supervisor({ store, jobs: [parkUntil], queues: ['q'], concurrency: 100 });
  await sup.start();
  await client.get('x').catch(() => null); // the store's first write stamps the format: before mem0
  await sleep(500);
  await beforeFill?.();
  const mem0 = await usedMemory(raw);
  const at = Date.now() + 3_600_000;
  for (let i = 0; i < n; i += 1000)
    await client.enqueueMany(
      Array.from({ length: Math.min(1000, n - i) }, () => ({ machine: parkUntil.name, input: { at } })),
    );
  while ((await raw.zcard('mb:{q}:delayed')) < n) await sleep(50);
  await sup.stop({ graceMs: 1000 });
  client.close();
  await store.close();
  return mem0;
}
