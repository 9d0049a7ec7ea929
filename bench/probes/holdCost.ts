// Probe: the worker CPU THE EARLY LEASE's hold costs, alone (issue 25, round thirteen): N of
// workload 15's pipelines are parked first by a Supervisor of their own (parkAll.ts), then a
// second Supervisor, its lead past their due time, claims each early and holds it (restored,
// waiting in memory for its timer); this process's CPU from its start until all are held, per job.
//
//   npm run build && node --expose-gc --import tsx --import ./bench/fromDist.mjs bench/probes/holdCost.ts [N=20000] [PROFILE]
//
// With PROFILE (a path), the hold's CPU profile is written there (.cpuprofile).

import { Redis } from 'ioredis';
import { pino } from 'pino';
import { RedisStore, Supervisor } from '../../src/index.js';
import { spawnRedisServer } from '../../examples/privateRedis.js';
import { parkUntil } from '../machines.js';
import { parkAll } from './parkAll.js';
import { profileWindow } from './profileWindow.js';

const N = Number(process.argv[2] ?? 20_000);
const PROFILE = process.argv[3];

const server = await spawnRedisServer();
const raw = new Redis(server.url);
const store = new RedisStore({ url: server.url, prefix: 'mb' });
try {
  await parkAll(raw, server.url, N); // an hour away
  (globalThis as { gc?: () => void }).gc?.();
  const profiled = await profileWindow(PROFILE);
  const t0 = Date.now();
  const c0 = process.cpuUsage();
  const sup = new Supervisor({
    store,
    jobs: [parkUntil],
    queues: ['q'],
    concurrency: 100,
    leadMs: 7_200_000,
    holdMax: N,
    logger: pino({ level: 'error' }),
  });
  await sup.start();
  while ((await raw.zcard('mb:{q}:active')) < N) await new Promise((r) => setTimeout(r, 20));
  const c = process.cpuUsage(c0);
  const ms = Date.now() - t0;
  await profiled();
  console.log(
    `held ${N} in ${ms} ms, cpu ${((c.user + c.system) / N).toFixed(1)} us a job (node ${process.version})`,
  );
  await sup.stop({ graceMs: 0 });
} finally {
  await store.close();
  await raw.quit();
  await server.stop('SIGKILL');
}
