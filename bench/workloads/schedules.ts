// Workload 11 (issue 24): 10,000 schedules of everyMs 1000 on 2 supervisors (the bench worker
// processes, each with its schedule loop on): every tick once, and how late each tick's job was
// made (its record's createdAt, Redis's clock, minus the tick time: p50/p99). Machinist only;
// BullMQ's job schedulers make one delayed job per scheduler, a different model (no catch-up).
//
//   BENCH_ONLY=schedules npm run bench     (BENCH_SCHEDULES, BENCH_SCHEDULE_SECS to change the size)

import { Client, RedisStore, scheduledJobInfo } from '../../src/index.js';
import { JOB_NAME, MACHINIST_PREFIX, QUEUE } from '../common.js';
import { log, redis, spawnWorkers } from '../harness.js';
import { fmt, percentile, row } from '../results.js';
import { commandStats, redisCpuSeconds } from '../redis.js';
import { analyzeProfile, inclusiveTimes } from '../profile.js';
import { scriptNamesBySha } from '../scriptNames.js';
import { loadavg } from 'node:os';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 10_000);
const SECS = Number(process.env.BENCH_SCHEDULE_SECS ?? 10);
/** Lateness is read from this many schedules' jobs (every tick of each): all 100k records cost minutes to read. */
const SAMPLED = 500;
/** BENCH_SCHEDULE_PROFILE=<file>: a CPU profile of each supervisor (<file>-0.cpuprofile, -1), summarized after. */
const PROFILE_FILE = process.env.BENCH_SCHEDULE_PROFILE;

/** The schedule loop's parts whose total time the profile summary shows. */
const LOOP_FUNCTIONS = [
  'fireAll',
  'prepare',
  'claimSchedules',
  'putSchedules',
  'decodeRecord',
  'encodeRecord',
  'dueTicks',
  'fire',
  'start',
  'buildNewJob',
  'enqueue',
  'runClaimedJob',
];

export async function schedulesWorkload(): Promise<void> {
  log(
    `\n== 11. schedules: ${SCHEDULES} of everyMs 1000 for ${SECS} s on 2 supervisors (every tick once, lateness)`,
  );
  await redis.ctl.flushall();
  const workers = await spawnWorkers('machinist', 2, 50, PROFILE_FILE);
  const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
  const client = new Client({ store, queue: QUEUE });
  try {
    workers.go();
    // The workers register the machine at start: wait for it before the schedules name it.
    for (let i = 0; i < 100 && !(await store.machines()).some((m) => m.name === JOB_NAME); i++)
      await new Promise((r) => setTimeout(r, 100));
    const now = await store.now();
    // Created before the first tick (one write each, 50 at a time): 30 s for 10,000 on this box at worst.
    const startAt = Math.ceil((now + 30_000) / 1000) * 1000;
    const endAt = startAt + (SECS - 1) * 1000;
    const t0 = Date.now();
    for (let i = 0; i < SCHEDULES; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, SCHEDULES - i) }, (_, k) =>
          client.schedule(`s${i + k}`, {
            everyMs: 1000,
            machine: JOB_NAME,
            startAt,
            endAt,
            overlap: 'allowAll',
          }),
        ),
      );
    log(`  created ${SCHEDULES} schedules in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const ready = await store.now();
    if (ready > startAt) log(`  WARNING: creation ran past the first tick by ${ready - startAt} ms`);
    // Redis's side of the tick window: CPU, commands, and which scripts ran slower than 1 ms.
    await redis.ctl.config('RESETSTAT');
    await redis.ctl.config('SET', 'slowlog-log-slower-than', '1000');
    await redis.ctl.config('SET', 'slowlog-max-len', '100000');
    await redis.ctl.slowlog('RESET');
    const cpu0 = await redisCpuSeconds(redis.ctl);
    await new Promise((r) => setTimeout(r, endAt - ready + 5_000));
    const cpu1 = await redisCpuSeconds(redis.ctl);
    const cmds = [...(await commandStats(redis.ctl))].sort((a, b) => b[1].usec - a[1].usec).slice(0, 6);
    const slow = (await redis.ctl.slowlog('GET', 100000)) as [number, number, number, string[]][];
    const names = scriptNamesBySha();
    const slowBy = new Map<string, { n: number; us: number; max: number }>();
    for (const [, , us, argv] of slow) {
      const cmd = argv[0]?.toLowerCase();
      // FCALL names the script itself: machinist_<hash>_<script>.
      const name =
        cmd === 'evalsha'
          ? (names.get(argv[1] ?? '') ?? 'evalsha ?')
          : cmd === 'fcall'
            ? (argv[1] ?? 'fcall ?').replace(/^machinist_[0-9a-f]+_/, '')
            : (argv[0] ?? '?');
      const e = slowBy.get(name) ?? { n: 0, us: 0, max: 0 };
      e.n++;
      e.us += us;
      e.max = Math.max(e.max, us);
      slowBy.set(name, e);
    }
    log(
      `  load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; Redis CPU over the window ${(cpu1 - cpu0).toFixed(1)} s`,
    );
    log(`  commands (calls, usec): ${cmds.map(([k, v]) => `${k} ${v.calls} ${v.usec}`).join('; ')}`);
    log(
      `  slower than 1 ms: ${[...slowBy].map(([k, v]) => `${k} ${v.n}x (sum ${fmt(v.us / 1000)} ms, max ${fmt(v.max / 1000)} ms)`).join('; ') || 'none'}`,
    );
    // Every schedule ended: `next` null; started == ticks, nothing skipped or missed.
    const all = await client.schedules();
    const bad = all.filter((s) => s.next !== null || s.started !== SECS || s.skipped + s.missed > 0);
    const counts = await store.counts(QUEUE);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    log(
      `  jobs made ${total} (want ${SCHEDULES * SECS}); schedules not ending with every tick once: ${bad.length}`,
    );
    const late: number[] = [];
    for (let i = 0; i < SAMPLED; i++)
      for (let t = startAt; t <= endAt; t += 1000) {
        const id = `sch.s${Math.floor((i * SCHEDULES) / SAMPLED)}.${t}`;
        const job = await store.getJob(id, QUEUE);
        if (job) late.push(job.createdAt - scheduledJobInfo(id)!.at);
      }
    const p50 = percentile(late, 50);
    const p99 = percentile(late, 99);
    row('11', 'schedule tick late p50', 'ms', 'lower').samples.machinist.push(p50);
    row('11', 'schedule tick late p99', 'ms', 'lower').samples.machinist.push(p99);
    row('11', 'schedule ticks not once', 'count', 'lower').samples.machinist.push(
      Math.abs(total - SCHEDULES * SECS) + bad.length,
    );
    log(`  late p50 ${fmt(p50)} ms  p99 ${fmt(p99)} ms  (${late.length} jobs of ${SAMPLED} schedules)`);
  } finally {
    await workers.stop();
    if (PROFILE_FILE)
      for (const i of [0, 1]) {
        const file = PROFILE_FILE.replace(/(\.cpuprofile)?$/, `-${i}$1`);
        log(`\n  supervisor ${i}: ${inclusiveTimes(file, LOOP_FUNCTIONS)}`);
        log(analyzeProfile(file, SCHEDULES * SECS, 25));
      }
    client.close();
    await store.close();
  }
}
