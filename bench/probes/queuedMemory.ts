// Probe for issue 25: where the Redis memory of a queued no-op job goes, Machinist's and BullMQ's,
// and what each layout lever would save. Per job = used_memory delta / N after N jobs queued
// (Machinist's enqueueMany, BullMQ's addBulk, as workload 16 does), then the same N written by hand
// in candidate layouts (the job hash with the same key name and fields, its ready index a zset entry
// or a list entry, fields dropped, a shorter key). Redis figures, no clocks: a loaded host changes
// none of them.
//
//   node --import tsx bench/probes/queuedMemory.ts PORT [N]     FLUSHALL on a redis-server of your own

import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { Client, RedisStore, defineJob } from '../../src/index.js';
import { JOB_NAME, MACHINIST_PREFIX, QUEUE } from '../common.js';
import { usedMemory } from '../redis.js';

const port = Number(process.argv[2]);
const N = Number(process.argv[3] ?? 100_000);
const url = `redis://127.0.0.1:${port}`;
const raw = new Redis(url);
const noop = defineJob({ name: JOB_NAME, work: async () => undefined });
const BATCH = 1000;
const f = (b: number) => Math.round(b).toLocaleString('en-US');

async function measure(label: string, fill: () => Promise<void>): Promise<number> {
  await raw.flushall();
  await raw.set('warm', '1'); // the keyspace's first allocations, before mem0
  const mem0 = await usedMemory(raw);
  await fill();
  const per = ((await usedMemory(raw)) - mem0) / N;
  console.log(`${label.padEnd(64)} ${f(per).padStart(5)} B/job`);
  return per;
}

async function describe(key: string): Promise<void> {
  const h = await raw.hgetall(key);
  const usage = await raw.memory('USAGE', key, 'SAMPLES', '0');
  console.log(
    `  ${key} (${key.length} chars): ${String(await raw.object('ENCODING', key))}, MEMORY USAGE ${usage} B`,
  );
  console.log(
    `  fields: ${Object.entries(h)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
}

// Machinist, as workload 16 enqueues.
const m = await measure('Machinist enqueueMany', async () => {
  const store = new RedisStore({ url, prefix: MACHINIST_PREFIX });
  const client = new Client({ store, jobs: [noop], queue: QUEUE });
  await client.get('x').catch(() => null); // stamps the format
  for (let i = 0; i < N; i += BATCH)
    await client.enqueueMany(
      Array.from({ length: Math.min(BATCH, N - i) }, () => ({ machine: JOB_NAME, input: {} })),
    );
  client.close();
  await store.close();
});
const qk = `${MACHINIST_PREFIX}:{${QUEUE}}:queued`;
// A queued job: in the `queued` zset, or (format 3) the ready list beside it.
const inZset = await raw.zrange(qk, '0', '0');
const inList = inZset.length === 0;
const [mid] = inList ? await raw.lrange(`${MACHINIST_PREFIX}:{${QUEUE}}:ready`, 0, 0) : inZset;
const mRecord = await raw.hgetall(`${MACHINIST_PREFIX}:{${QUEUE}}:job:${mid}`);
await describe(`${MACHINIST_PREFIX}:{${QUEUE}}:job:${mid}`);
for (const k of (await raw.keys(`${MACHINIST_PREFIX}:*`)).filter((k) => !k.includes(':job:')).sort())
  console.log(
    `  ${k}: ${await raw.type(k)}, ${String(await raw.object('ENCODING', k))}, MEMORY USAGE ${await raw.memory('USAGE', k, 'SAMPLES', '0')} B`,
  );
const mEvents =
  Number(await raw.memory('USAGE', `${MACHINIST_PREFIX}:{${QUEUE}}:events`, 'SAMPLES', '0')) / N;
// Format 4 writes a batch's `enqueued` entry with its ids grouped (`jg`): lever (iii) is built.
const grouped = (await raw.xrange(`${MACHINIST_PREFIX}:{${QUEUE}}:events`, '-', '+', 'COUNT', 1)).some(
  ([, kv]) => kv.includes('jg'),
);

// BullMQ 6.7, as workload 16 adds.
const b = await measure('BullMQ addBulk', async () => {
  const queue = new Queue(QUEUE, { connection: { host: '127.0.0.1', port } });
  for (let i = 0; i < N; i += BATCH)
    await queue.addBulk(
      Array.from({ length: Math.min(BATCH, N - i) }, () => ({
        name: JOB_NAME,
        data: {},
        opts: { removeOnComplete: false },
      })),
    );
  await queue.close();
});
await describe(`bull:${QUEUE}:1`);
for (const k of (await raw.keys(`bull:${QUEUE}:*`)).filter((k) => !/:\d+$/.test(k)).sort())
  console.log(
    `  ${k}: ${await raw.type(k)}, ${String(await raw.object('ENCODING', k))}, MEMORY USAGE ${await raw.memory('USAGE', k, 'SAMPLES', '0')} B`,
  );
const bEvents = Number(await raw.memory('USAGE', `bull:${QUEUE}:events`, 'SAMPLES', '0')) / N;

// The same records written by hand, one lever at a time.
const ids = Array.from({ length: N }, (_, i) => mid!.slice(0, 16) + String(i).padStart(10, '0'));
const score0 = Number(mRecord.qs);
type Layout = {
  key: (id: string) => string;
  fields: Record<string, string>;
  index: 'zset' | 'list' | 'none';
};
async function layout(label: string, l: Layout): Promise<number> {
  return measure(label, async () => {
    for (let i = 0; i < N; i += BATCH) {
      const p = raw.pipeline();
      for (let j = i; j < Math.min(N, i + BATCH); j++) {
        const id = ids[j]!;
        p.hset(l.key(id), l.fields);
        if (l.index === 'zset') p.zadd(qk, score0 + j, id);
        if (l.index === 'list') p.rpush(qk, id);
      }
      await p.exec();
    }
  });
}
const key = (id: string) => `${MACHINIST_PREFIX}:{${QUEUE}}:job:${id}`;
const drop = (...names: string[]) =>
  Object.fromEntries(Object.entries(mRecord).filter(([k]) => !names.includes(k)));
console.log('by hand (same key names and fields unless said):');
const zsetNow = await layout('hash + zset entry (the layout now)', { key, fields: mRecord, index: 'zset' });
const hashOnly = await layout('hash alone', { key, fields: mRecord, index: 'none' });
const list = await layout('hash + list entry (lever i)', { key, fields: mRecord, index: 'list' });
// Format 4 leaves out v and ma when they hold the defaults: lever (ii) is built, and saves no more.
const lean = !('v' in mRecord) && !('ma' in mRecord);
await layout('hash without v, ma (defaults) + zset', { key, fields: drop('v', 'ma'), index: 'zset' });
const listLean = lean
  ? list
  : await layout('hash without v, ma + list', { key, fields: drop('v', 'ma'), index: 'list' });
await layout('hash without v, ma, st + list', { key, fields: drop('v', 'ma', 'st'), index: 'list' });
await layout('hash, key m:{q}:j:<id> (shorter by 8) + list', {
  key: (id) => `m:{q}:j:${id}`,
  fields: mRecord,
  index: 'list',
});
// Format 3 queues a normal-band job in the ready list: lever (i) is built, and saves no more.
const indexNow = inList ? list : zsetNow;
const rest = m - indexNow - mEvents;
console.log(
  `Machinist ${f(m)} B/job = hash and key ${f(hashOnly)} + ${inList ? 'list' : 'zset'} entry ${f(indexNow - hashOnly)} + events stream ${f(mEvents)} + rest ${f(rest)}`,
);
console.log(
  `BullMQ ${f(b)} B/job, of it the events stream ${f(bEvents)}; Machinist / BullMQ ${(m / b).toFixed(2)}`,
);
const lever = (label: string, saved: number) =>
  console.log(
    `  ${label.padEnd(52)} ${f(m - saved).padStart(5)} B/job (${((m - saved) / b).toFixed(2)}x BullMQ)`,
  );
lever('(i) list for the default band', indexNow - list);
lever(`(ii) no v, ma when defaults${lean ? ' (built)' : ''}`, list - listLean);
lever('(i) + (ii)', indexNow - listLean);
// (iii): a batch's combined `enqueued` entry lists its ids grouped (format 4: field `jg`,
// src/store/redis/idGroups.ts) instead of every id: the stream's share per job goes to ~2 B.
// Projected while not built: what the stream holds now, saved.
lever(
  grouped
    ? '(iii) enqueued entries with ids grouped (built)'
    : '(iii) enqueued entries as runs of ids (projected)',
  grouped ? 0 : mEvents,
);
lever('(i) + (iii)', indexNow - list + (grouped ? 0 : mEvents));
lever('(i) + (ii) + (iii)', indexNow - listLean + (grouped ? 0 : mEvents));
raw.disconnect();
