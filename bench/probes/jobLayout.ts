// Probe for issue 25: what one job leaves in Redis. Enqueues a no-op job (left queued), runs a
// 3-step pipeline that parks on a durable `after` timer between its second and third step, lets
// a no-op job finish, then prints every key of the queue's hash tag with its type, encoding,
// MEMORY USAGE and (for hashes) each field's size.
//
//   node --import tsx bench/probes/jobLayout.ts PORT      against a redis-server of your own (FLUSHALL)

import { Redis } from 'ioredis';
import { assign, setup } from 'xstate';
import { Client, RedisStore, Supervisor, defineJob, definePipeline, step } from '../../src/index.js';
import { parkUntil } from '../machines.js';
import { PARKED_NAME } from '../common.js';

const port = Number(process.argv[2]);
const url = `redis://127.0.0.1:${port}`;
const PREFIX = 'm';
const QUEUE = 'q';

const noop = defineJob({ name: 'noop', work: async () => undefined });
const parkedThree = definePipeline({
  name: 'parkedThree',
  machine: setup({
    types: { context: {} as { n: number } },
    actors: { s: step(async () => 1) },
  }).createMachine({
    initial: 'one',
    context: { n: 0 },
    states: {
      one: { invoke: { id: 's1', src: 's', onDone: { target: 'two', actions: assign({ n: 1 }) } } },
      two: { invoke: { id: 's2', src: 's', onDone: { target: 'wait', actions: assign({ n: 2 }) } } },
      wait: { after: { 3_600_000: 'three' } },
      three: { invoke: { id: 's3', src: 's', onDone: 'end' } },
      end: { type: 'final' },
    },
  }),
});

const raw = new Redis(url);
await raw.flushall();
const store = new RedisStore({ url, prefix: PREFIX });
const client = new Client({ store, jobs: [noop, parkedThree, parkUntil], queue: QUEUE });
const sup = new Supervisor({ store, jobs: [noop, parkedThree, parkUntil], queues: [QUEUE], concurrency: 4 });
await sup.start();
const finished = await client.enqueue('noop', undefined);
const parked = await client.enqueue('parkedThree', undefined);
const bench15 = await client.enqueue(PARKED_NAME, { at: Date.now() + 3_600_000 });
for (;;) {
  const a = await client.get(parked);
  const b = await client.get(finished);
  const c = await client.get(bench15);
  if (a?.status === 'waiting' && b?.status === 'done' && c?.status === 'waiting') break;
  await new Promise((r) => setTimeout(r, 20));
}
await sup.stop({ graceMs: 1000 });
const queued = await client.enqueue('noop', undefined);

const ids: Record<string, string> = { queued, parked, bench15, finished };
const keys = (await raw.keys(`${PREFIX}:{${QUEUE}}:*`)).sort();
console.log(
  `redis ${(await raw.info('server')).match(/redis_version:(\S+)/)?.[1]}; ids: ${JSON.stringify(ids)}`,
);
for (const k of keys) {
  const type = await raw.type(k);
  const enc = await raw.object('ENCODING', k);
  const mem = Number(await raw.memory('USAGE', k, 'SAMPLES', '0'));
  const owner = Object.entries(ids).find(([, id]) => k.includes(id))?.[0] ?? 'queue';
  console.log(`${owner.padEnd(8)} ${k.padEnd(50)} ${type.padEnd(6)} ${String(enc).padEnd(10)} ${mem} B`);
  if (type === 'hash' && owner !== 'queue') {
    const h = await raw.hgetall(k);
    for (const [f, v] of Object.entries(h))
      console.log(
        `           ${f.padEnd(4)} ${String(Buffer.byteLength(v)).padStart(5)}  ${v.slice(0, 160)}`,
      );
  }
  if (type === 'zset')
    console.log(`           ${JSON.stringify(await raw.zrange(k, '0', '-1', 'WITHSCORES')).slice(0, 200)}`);
}
for (const [name, id] of Object.entries(ids)) {
  let sum = 0;
  for (const k of keys.filter((k) => k.includes(id)))
    sum += Number(await raw.memory('USAGE', k, 'SAMPLES', '0'));
  console.log(`${name}: ${sum} B in its own keys`);
}
client.close();
await store.close();
raw.disconnect();
