// Probe for issue 25: where a parked pipeline's bytes go and what each lever not built would save.
// Parks N of workload 15's pipelines (parkUntil, an hour away), prints Redis memory per job by key
// class (MEMORY USAGE summed), then edits the N records in place, one lever after the other (each
// on top of the ones before), printing used_memory per job after each:
//   - io, tk       the two fields a parked record holds empty or zero (`io` is not written since
//                  format 2 when no inbox event was consumed: then only `tk` goes)
//   - l1 l2 l3     the log's enqueued / claimed / started entries, as if implicit
//   - ua           the park's updated-at
//   - waiting      the job's entry in `waiting`, as if one index (`delayed`) served a timed park
//   written afresh the same fields in a new hash (a hash table does not shrink as fields go)
//   as listpack    the same with `hash-max-listpack-value 256` (an operator's setting; restored)
// LEVERS=0: none of the four edits (the records as written, afresh and as a listpack).
// A loaded machine changes none of these figures.
//
//   node --import tsx --import ./bench/fromDist.mjs bench/probes/parkedLevers.ts PORT [N]
//   FLUSHALL and CONFIG SET on a redis-server of your own

import { Redis } from 'ioredis';
import { usedMemory } from '../redis.js';
import { parkAll } from './parkAll.js';

const port = Number(process.argv[2]);
const N = Number(process.argv[3] ?? 10_000);
const url = `redis://127.0.0.1:${port}`;
const raw = new Redis(url);

/** MEMORY USAGE summed by key class (a job's id and a series' minute made `*`). */
async function sizes(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, keys] = await raw.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const k of keys) {
      const cls = k.replace(/job:[0-9A-Z]+/, 'job:*').replace(/series:\d+/, 'series:*');
      out.set(cls, (out.get(cls) ?? 0) + Number(await raw.memory('USAGE', k, 'SAMPLES', '0')));
    }
  } while (cursor !== '0');
  return out;
}

let before = new Map<string, number>();
const mem0 = await parkAll(raw, url, N, async () => {
  before = await sizes();
});
const per = async () => Math.round(((await usedMemory(raw)) - mem0) / N);
console.log(`N=${N}: parked ${await per()} B/job (used_memory); by key class (MEMORY USAGE):`);
for (const [cls, bytes] of await sizes()) {
  const d = (bytes - (before.get(cls) ?? 0)) / N;
  if (Math.abs(d) >= 0.5) console.log(`  ${cls.padEnd(24)} ${d.toFixed(1)} B/job`);
}

const ids = await raw.zrange('mb:{q}:delayed', '0', '-1');
const sample = `mb:{q}:job:${ids[0]}`;
async function show(label: string): Promise<void> {
  const enc = String(await raw.object('ENCODING', sample));
  const usage = await raw.memory('USAGE', sample, 'SAMPLES', '0');
  console.log(
    `${label.padEnd(34)} ${await per()} B/job  (a record: ${await raw.hlen(sample)} fields, ${enc}, ${usage} B)`,
  );
}
async function each(label: string, f: (p: ReturnType<Redis['pipeline']>, key: string, id: string) => void) {
  for (let i = 0; i < ids.length; i += 1000) {
    const p = raw.pipeline();
    for (const id of ids.slice(i, i + 1000)) f(p, `mb:{q}:job:${id}`, id);
    await p.exec();
  }
  await show(label);
}
async function afresh(label: string): Promise<void> {
  for (let i = 0; i < ids.length; i += 1000) {
    const keys = ids.slice(i, i + 1000).map((id) => `mb:{q}:job:${id}`);
    const r = raw.pipeline();
    for (const k of keys) r.hgetall(k);
    const hashes = ((await r.exec()) ?? []).map(([, v]) => v as Record<string, string>);
    const w = raw.pipeline();
    keys.forEach((k, j) => w.del(k).hset(k, hashes[j]!));
    await w.exec();
  }
  await show(label);
}

if (process.env.LEVERS !== '0') {
  await each('- io, tk', (p, k) => p.hdel(k, 'io', 'tk'));
  await each('- l1 l2 l3 (log prefix implicit)', (p, k) => p.hdel(k, 'l1', 'l2', 'l3'));
  await each('- ua', (p, k) => p.hdel(k, 'ua'));
  await each('- its waiting entry (one index)', (p, _k, id) => p.zrem('mb:{q}:waiting', id));
}
await afresh('the same, written afresh');
const [, limit] = (await raw.config('GET', 'hash-max-listpack-value')) as [string, string];
await raw.config('SET', 'hash-max-listpack-value', '256');
await afresh('as listpack (hash-max-listpack-value 256)');
await raw.config('SET', 'hash-max-listpack-value', limit);
raw.disconnect();
