// Probe: the worker CPU a failed attempt costs (issue 25, round thirteen): N simple jobs whose
// work throws, ATTEMPTS attempts each with no backoff delay, run by one Supervisor on a private
// redis-server until all have failed for good; this process's CPU from the supervisor's start,
// per attempt (the enqueue before it not counted). Run under tsx, a stack read goes through
// Node's source-map support (tsx turns it on): a cost a plain `node` of dist does not have.
//
//   npm run build && node --import tsx --import ./bench/fromDist.mjs bench/probes/failCost.ts [N=10000] [ATTEMPTS=3]

import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Client, RedisStore, Supervisor, defineJob } from '../../src/index.js';
import { spawnRedisServer } from '../../examples/privateRedis.js';

const N = Number(process.argv[2] ?? 10_000);
const ATTEMPTS = Number(process.argv[3] ?? 3);

const failing = defineJob({
  name: 'failing',
  retry: { maxAttempts: ATTEMPTS, backoff: { type: 'fixed', delayMs: 0 } },
  work: async () => {
    throw new Error('down');
  },
});
const server = await spawnRedisServer();
const raw = new Redis(server.url);
const store = new RedisStore({ url: server.url, prefix: 'fc' });
const client = new Client({ store, jobs: [failing] });
try {
  for (let i = 0; i < N; i += 1000)
    await client.enqueueMany(
      Array.from({ length: Math.min(1000, N - i) }, () => ({ machine: 'failing', input: {} })),
    );
  const sup = new Supervisor({ store, jobs: [failing], concurrency: 100, logger: pino({ level: 'error' }) });
  const t0 = Date.now();
  const c0 = process.cpuUsage();
  await sup.start();
  const failed = store.keys('default').failed;
  while ((await raw.zcard(failed)) < N) await new Promise((r) => setTimeout(r, 20));
  const c = process.cpuUsage(c0);
  console.log(
    `${N} jobs x ${ATTEMPTS} attempts failed in ${Date.now() - t0} ms; cpu ${((c.user + c.system) / (N * ATTEMPTS)).toFixed(1)} us an attempt (node ${process.version})`,
  );
  await sup.stop({ graceMs: 0 });
} finally {
  client.close();
  await store.close();
  await raw.quit();
  await server.stop('SIGKILL');
}
