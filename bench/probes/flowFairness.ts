// Probe for issue 24's fairness target (docs/flow-control.md): 2 concurrency keys on one queue,
// one with a backlog of BIG jobs enqueued first, one with SMALL jobs enqueued after; perKey 5,
// total 10; two supervisors of concurrency 10 on one private redis-server. Prints how long the
// small key's jobs take to finish behind the backlog and alone (same jobs, empty queue): the
// target is "within 2x". Measured once, printed with the machine it ran on; not a test.
//
//   node --import tsx bench/probes/flowFairness.ts [--big 50000] [--small 50] [--job-ms 50]

import os from 'node:os';
import { Client, RedisStore, Supervisor, defineJob } from '../../src/index.js';
import { startRedis } from '../redis.js';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(argv[i + 1]);
};
const BIG = opt('big', 50_000);
const SMALL = opt('small', 50);
const JOB_MS = opt('job-ms', 50);

const redis = await startRedis();

async function run(big: number): Promise<number> {
  const prefix = `fair${big}`;
  const store = new RedisStore({ url: redis.url, prefix });
  let smallDone = 0;
  let resolveSmall!: () => void;
  const allSmall = new Promise<void>((r) => (resolveSmall = r));
  const job = defineJob({
    name: 'work',
    work: async ({ input }: { input: { key: string } }) => {
      await new Promise((r) => setTimeout(r, JOB_MS));
      if (input.key === 'small' && ++smallDone === SMALL) resolveSmall();
      return 1;
    },
  });
  const client = new Client({ store, jobs: [job] });
  await client.setQueueLimits('default', { concurrency: { perKey: 5, total: 10 } });
  const item = (key: string) => ({
    machine: 'work' as const,
    input: { key },
    options: { concurrencyKey: key },
  });
  for (let i = 0; i < big; i += 5000)
    await client.enqueueMany(Array.from({ length: Math.min(5000, big - i) }, () => item('big')));
  await client.enqueueMany(Array.from({ length: SMALL }, () => item('small')));
  const sups = [0, 1].map(() => new Supervisor({ store, jobs: [job], concurrency: 10 }));
  const t0 = performance.now();
  await Promise.all(sups.map((s) => s.start()));
  await allSmall;
  const ms = performance.now() - t0;
  const limits = await client.queueLimits('default');
  await Promise.all(sups.map((s) => s.stop()));
  client.close();
  await store.close();
  console.log(
    `big ${big}: the small key's ${SMALL} done in ${ms.toFixed(0)} ms; big key then running ${limits.keys.find((k) => k.key === 'big')?.running ?? 0}, waiting ${limits.keys.find((k) => k.key === 'big')?.waiting ?? 0}`,
  );
  return ms;
}

try {
  console.log(`${os.cpus()[0]?.model} x${os.cpus().length}, node ${process.version}; job ${JOB_MS} ms`);
  const alone = await run(0);
  const behind = await run(BIG);
  console.log(`ratio behind/alone: ${(behind / alone).toFixed(2)} (target <= 2)`);
} finally {
  await redis.stop();
}
