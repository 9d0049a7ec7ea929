// What durability 'replicated' costs an enqueue: one master and one replica on loopback, the
// same producer alternating rounds of `async` and `replicated` enqueues (so the machine's noise
// falls on both alike), one at a time (latency: p50/p99) and 16 at a time (jobs/s).
//
//   npx tsx bench/probes/replicatedEnqueue.ts            10 rounds of 300 each way
//   ROUNDS=3 npx tsx bench/probes/replicatedEnqueue.ts
//
// Loopback replication is the best case: on real hosts WAIT adds at least one network round
// trip between master and replica (and the replica's ack cadence) to every acknowledged write.

import { Redis } from 'ioredis';
import { Client, RedisStore, defineJob } from '../../src/index.js';
import { spawnRedisServer } from '../../examples/privateRedis.js';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const PER_ROUND = 300;
const job = defineJob({ name: 'noop', work: async () => null });

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

const master = await spawnRedisServer({ extraArgs: ['--repl-diskless-sync-delay', '0'] });
const replicaServer = await spawnRedisServer();
const replica = new Redis(replicaServer.url);
await replica.replicaof('127.0.0.1', master.port);
while (!/master_link_status:up/.test(await replica.info('replication')))
  await new Promise((r) => setTimeout(r, 50));

const modes = ['async', 'replicated'] as const;
const clients = Object.fromEntries(
  modes.map((mode) => {
    const store = new RedisStore({ url: master.url, prefix: `bench-${mode}`, durability: mode });
    return [mode, { store, client: new Client({ store, jobs: [job] }) }];
  }),
) as Record<(typeof modes)[number], { store: RedisStore; client: Client }>;
const lat = { async: [] as number[], replicated: [] as number[] };
const rate = { async: [] as number[], replicated: [] as number[] };
for (const m of modes) await clients[m].client.enqueue('noop', {}); // connected, scripts loaded

for (let round = 0; round < ROUNDS; round++) {
  for (const m of round % 2 ? [...modes].reverse() : modes) {
    const { client } = clients[m];
    for (let i = 0; i < PER_ROUND; i++) {
      const t0 = performance.now();
      await client.enqueue('noop', {});
      lat[m].push(performance.now() - t0);
    }
    const t0 = performance.now();
    let left = PER_ROUND * 4;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (left-- > 0) await client.enqueue('noop', {});
      }),
    );
    rate[m].push((PER_ROUND * 4) / ((performance.now() - t0) / 1000));
  }
}

console.log(`enqueue on a master with one loopback replica, ${ROUNDS} rounds (redis ${master.url})`);
console.log('| durability | p50 ms | p99 ms | jobs/s at 16 in flight (median round) |');
console.log('| --- | --- | --- | --- |');
for (const m of modes)
  console.log(
    `| ${m} | ${pct(lat[m], 50).toFixed(3)} | ${pct(lat[m], 99).toFixed(3)} | ${Math.round(pct(rate[m], 50))} |`,
  );

for (const m of modes) {
  clients[m].client.close();
  await clients[m].store.close();
}
replica.disconnect();
await replicaServer.stop('SIGKILL');
await master.stop('SIGKILL');
