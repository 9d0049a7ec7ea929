// Probe for issue 25: Redis commands per parked pipeline. N of workload 15's pipelines (parkUntil)
// are enqueued, run to their timer and parked, then run to done; prints the commands Redis ran
// per job (INFO commandstats: scripts and the commands inside them both count), by command.
// Counts are exact on a loaded machine; the usec figures are not. With `resume`, the counts start
// once all are parked: the resume alone (the due timers' promotion, the claim, the done).
//
//   node --import tsx bench/probes/parkedCommands.ts PORT [N] [resume]     FLUSHALL on a redis-server of your own

import { Redis } from 'ioredis';
import { Client, RedisStore, Supervisor } from '../../src/index.js';
import { parkUntil } from '../machines.js';

const port = Number(process.argv[2]);
const N = Number(process.argv[3] ?? 2000);
const resumeOnly = process.argv[4] === 'resume';
const url = `redis://127.0.0.1:${port}`;
const raw = new Redis(url);
await raw.flushall();
const store = new RedisStore({ url, prefix: 'mb' });
const client = new Client({ store, jobs: [parkUntil], queue: 'q' });
const sup = new Supervisor({ store, jobs: [parkUntil], queues: ['q'], concurrency: 100 });
await sup.start();
if (!resumeOnly) await raw.config('RESETSTAT');
const at = Date.now() + 8000;
for (let i = 0; i < N; i += 1000)
  await client.enqueueMany(
    Array.from({ length: Math.min(1000, N - i) }, () => ({ machine: parkUntil.name, input: { at } })),
  );
if (resumeOnly) {
  while ((await raw.zcard('mb:{q}:delayed')) < N) await new Promise((r) => setTimeout(r, 20));
  if (Date.now() >= at) throw new Error('not all parked before the due time: take a smaller N');
  await raw.config('RESETSTAT');
}
while ((await raw.zcard('mb:{q}:done')) < N) await new Promise((r) => setTimeout(r, 100));
const info = await raw.info('commandstats');
await sup.stop({ graceMs: 1000 });
client.close();
await store.close();
raw.disconnect();
let calls = 0;
let usec = 0;
const rows: string[] = [];
const HARNESS = ['info', 'config', 'zcard', 'ping', 'client', 'select', 'hello'];
for (const m of info.matchAll(/cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/g)) {
  if (HARNESS.some((c) => m[1]!.startsWith(c))) continue;
  calls += Number(m[2]);
  usec += Number(m[3]);
  rows.push(`${m[1]} ${(Number(m[2]) / N).toFixed(2)}`);
}
console.log(
  `${N} ${resumeOnly ? 'resumed' : 'parked, then done'}: ${(calls / N).toFixed(2)} commands/job, ${(usec / N).toFixed(1)} us/job`,
);
console.log(rows.join(', '));
