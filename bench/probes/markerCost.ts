// Probe: Redis commands per job (INFO commandstats, every command counted, those the scripts call
// too) for one tree's src, to compare a change's round trips with its base commit's. Two cases:
// a trickle (2 supervisors of c=4, jobs enqueued 3 at a time every 3 ms, so queues run empty
// often: lanes idle, are kicked, leave blocks in flight) and a prefilled queue (1 supervisor,
// c=100: the plain claim path). The probe's own polling (a ZCARD every 20 ms) is counted.
//
//   node --import tsx bench/probes/markerCost.ts TREE PORT   (TREE: a checkout's root; PORT: a
//   private redis-server of the run's own; run old and new alternately)
import { Redis } from 'ioredis';
import { pino } from 'pino';
const [tree, port] = [process.argv[2]!, Number(process.argv[3])];
async function main() {
  const m = await import(`${tree}/src/index.ts`);
  const { Client, RedisStore, Supervisor, defineJob } = m;
  const ctl = new Redis({ port });
  const stats = async () => {
    const info = await ctl.info('commandstats');
    const out: Record<string, number> = {};
    for (const line of info.split('\n')) {
      const mm = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
      if (mm) out[mm[1]!] = Number(mm[2]);
    }
    return out;
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const run = async (label: string, sups: number, c: number, n: number, batch: number, gapMs: number) => {
    await ctl.flushall();
    const store = new RedisStore({ redis: { port }, prefix: `p${label}` });
    const job = defineJob({ name: 'noop', work: async () => {} });
    const client = new Client({ store, jobs: [job] });
    const logger = pino({ level: 'silent' });
    const ss = Array.from(
      { length: sups },
      () => new Supervisor({ store, jobs: [job], concurrency: c, logger }),
    );
    if (gapMs === 0)
      for (let i = 0; i < n; i += 500)
        await Promise.all(Array.from({ length: Math.min(500, n - i) }, () => client.enqueue('noop', {})));
    for (const s of ss) await s.start();
    await sleep(300);
    await ctl.config('RESETSTAT');
    const t0 = Date.now();
    if (gapMs > 0)
      for (let i = 0; i < n; i += batch) {
        await Promise.all(Array.from({ length: batch }, () => client.enqueue('noop', {})));
        await sleep(gapMs);
      }
    for (;;) {
      const done = await ctl.zcard(`p${label}:{default}:done`);
      if (done >= n) break;
      if (Date.now() - t0 > 60_000) break;
      await sleep(20);
    }
    const st = await stats();
    for (const s of ss) await s.stop({ graceMs: 0 });
    client.close();
    await store.close?.();
    const total = Object.values(st).reduce((a, b) => a + b, 0);
    const per = (k: string) => ((st[k] ?? 0) / n).toFixed(3);
    console.log(
      `${tree.split('/').pop()} ${label}: all ${(total / n).toFixed(3)}/job  bzpopmin ${per('bzpopmin')} zadd ${per('zadd')} evalsha ${per('evalsha')} fcall ${per('fcall')} multi ${per('multi')}`,
    );
  };
  await run('trickle', 2, 4, 3000, 3, 3);
  await run('prefill', 1, 100, 20000, 0, 0);
  ctl.disconnect();
  process.exit(0);
}
void main();
