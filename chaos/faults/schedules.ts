// Faults under schedules (issue 24): T17, SIGKILL of the supervisors firing a few hundred
// schedules of short intervals and of cron with a seconds field. Every worker process runs a
// schedule loop; each kill leaves the killed one's claimed schedules held until their lease
// passes, perhaps with their jobs enqueued and the schedules not yet advanced. After the window,
// read from Redis: every tick of every schedule has exactly its one job (the tick's derived id,
// src/client/schedules/scheduledJobId.ts), no job names a tick the schedule does not have, and
// each schedule counted each tick once (its `started`: advanced once per tick, never twice).

import { Cluster, QUEUE } from '../cluster.js';
import { WorkerKiller } from '../kills.js';
import { percentile, sleep } from '../lines.js';
import { rng } from '../mix.js';
import { target, type Result, type RunEnv, type Scenario } from '../scenario.js';
import { scheduledJobInfo } from '../../src/index.js';
import { ticksIn } from '../../src/client/schedules/scheduleTicks.js';
import { FINISHED } from '../../src/store/types.js';

/** The schedule loop's lease in the workers: how long a killed holder's schedules wait. */
const SCHEDULE_LEASE_MS = 2000;
/** The loop sleeps at most this long (ScheduleLoop's MAX_SLEEP_MS). */
const LOOP_SLEEP_MS = 1000;

interface Made {
  id: string;
  options: Parameters<Cluster['client']['schedule']>[1];
}

export const t17: Scenario = {
  id: 'T17',
  title: 'SIGKILL of supervisors firing schedules',
  quick: true,
  async run(env: RunEnv): Promise<Result[]> {
    const count = env.quick ? 200 : 400;
    const windowMs = env.quick ? 30_000 : 120_000;
    const killEveryMs = env.quick ? 3000 : 2500;
    const startedAt = Date.now();
    const cluster = await Cluster.start(env.worker);
    let ok = false;
    try {
      const spawn = () => cluster.spawnWorker({ scheduleLeaseMs: SCHEDULE_LEASE_MS, concurrency: 20 });
      await Promise.all([0, 1, 2].map(spawn));
      const rand = rng(env.seed + 17);
      const now = await cluster.store.now();
      // The first tick after every schedule is made; whole seconds, so cron and intervals line up.
      const startAt = Math.ceil((now + 5000) / 1000) * 1000;
      const endAt = startAt + windowMs - 1;
      const made: Made[] = [];
      for (let i = 0; i < count; i++) {
        const cron = i % 5 === 4;
        made.push({
          id: `c${i}`,
          options: {
            ...(cron
              ? { cron: i % 10 === 4 ? '*/2 * * * * *' : '*/3 * * * * *' }
              : { everyMs: [1000, 1500, 2000][i % 3]! }),
            machine: 'simple',
            input: { ms: Math.floor(rand() * 50) },
            startAt,
            endAt,
            // allowAll: every tick starts its job whatever the one before does, so the expected
            // set of jobs is exactly the ticks (skip would rightly skip behind a slow job).
            overlap: 'allowAll',
            catchupWindowMs: 60_000,
          },
        });
      }
      for (let i = 0; i < made.length; i += 50)
        await Promise.all(made.slice(i, i + 50).map((m) => cluster.client.schedule(m.id, m.options)));

      // The kills: a random running worker every killEveryMs through the window, never the last
      // one (a replacement starts at once and joins when ready).
      let kills = 0;
      const killer = new WorkerKiller(cluster, rand, spawn);
      await sleep(Math.max(0, startAt - Date.now()));
      while (Date.now() < endAt - 1000) {
        // Into a pass: ticks fall on whole seconds, and a loop fires them in the next ~200 ms, so
        // a kill then most likely finds its victim between an enqueue and the advance.
        const at0 = Date.now() + killEveryMs * (0.5 + rand());
        await sleep(Math.ceil(at0 / 1000) * 1000 + Math.floor(rand() * 200) - Date.now());
        if (killer.killOne()) kills++;
      }
      await killer.replaced();

      // Settled: every schedule past its end (next null), then its jobs finished.
      const settleBy = Date.now() + windowMs + 60_000;
      let unended = made.length;
      while (Date.now() < settleBy) {
        const all = await cluster.client.schedules();
        unended = all.filter((s) => s.next !== null || s.buffered.length > 0).length;
        if (unended === 0) break;
        await sleep(500);
      }
      const infos = new Map((await cluster.client.schedules()).map((s) => [s.id, s]));

      // Every job of the queue that a schedule started, by its id.
      const jobs = new Map<string, { createdAt: number; status: string }>();
      let cursor: string | undefined;
      do {
        const page = await cluster.client.list({ queue: QUEUE, limit: 500, cursor });
        for (const j of page.jobs)
          if (scheduledJobInfo(j.id)) jobs.set(j.id, { createdAt: j.createdAt, status: j.status });
        cursor = page.cursor ?? undefined;
      } while (cursor);

      let ticks = 0;
      let lost = 0;
      let countedWrong = 0;
      const late: number[] = [];
      const examples: string[] = [];
      const expected = new Set<string>();
      for (const m of made) {
        const info = infos.get(m.id);
        const want = info ? ticksIn(info.spec, startAt, endAt, 10_000) : [];
        ticks += want.length;
        for (const t of want) {
          const id = `sch.${m.id}.${t}`;
          expected.add(id);
          const j = jobs.get(id);
          if (!j) {
            lost++;
            if (examples.length < 5) examples.push(`lost: ${id}`);
          } else late.push(j.createdAt - t);
        }
        // Each tick counted once: a tick advanced twice (two holders both winning) would count twice.
        if (!info || info.started !== want.length || info.skipped + info.missed > 0) {
          countedWrong++;
          if (examples.length < 5)
            examples.push(
              `${m.id}: started ${info?.started} skipped ${info?.skipped} missed ${info?.missed} for ${want.length} ticks`,
            );
        }
      }
      // A job of a tick the schedule does not have (or a second id for one) would be a doubled tick.
      const extra = [...jobs.keys()].filter((id) => !expected.has(id));
      if (extra.length > 0) examples.push(`extra: ${extra.slice(0, 3).join(', ')}`);
      const unfinished = [...jobs.values()].filter((j) => !FINISHED.has(j.status as never)).length;
      const p50 = percentile(late, 50);
      const p99 = percentile(late, 99);
      const max = late.length ? Math.max(...late) : 0;
      // Ticks fired again by the next holder after a killed one's lease passed.
      const recovered = late.filter((ms) => ms >= SCHEDULE_LEASE_MS).length;
      const bound = SCHEDULE_LEASE_MS + LOOP_SLEEP_MS + 2000;
      const targets = [
        target('every schedule ended (all its ticks handled)', unended === 0, `${unended} not ended`),
        target('0 ticks lost (each tick has its job)', lost === 0, `${lost} of ${ticks}`),
        target("0 ticks doubled (no job beside the ticks' own ids)", extra.length === 0, extra.length),
        target(
          'each tick counted once (started = ticks, none skipped or missed)',
          countedWrong === 0,
          `${countedWrong} schedules off`,
        ),
        target("every tick's job finished", unfinished === 0, `${unfinished} unfinished`),
        target(
          `lateness <= schedule lease + loop sleep + 2 s (${bound} ms)`,
          max <= bound,
          `p50 ${p50} ms, p99 ${p99} ms, max ${max} ms over ${late.length} jobs (${recovered} made after a killed holder's lease)`,
        ),
        target('0 worker crashes', cluster.unexpectedExits.length === 0, cluster.unexpectedExits.length),
      ];
      ok = targets.every((t) => t.ok);
      return [
        {
          id: 'T17',
          title: this.title,
          procedure:
            `${count} schedules (everyMs 1000, 1500 or 2000; every fifth a cron with seconds, */2 or */3), ` +
            `allowAll, a ${windowMs / 1000} s window, on 3 worker processes (schedule lease ` +
            `${SCHEDULE_LEASE_MS} ms, concurrency 20); about every ${killEveryMs / 1000} s, in the first ` +
            `200 ms after a whole second (while the loops fire), a random worker is SIGKILLed ` +
            `(never the last) and a new one started: ${kills} kills. Then every ` +
            `tick's job id is looked for in Redis, and each schedule's counts.`,
          targets,
          notes: examples,
          seconds: (Date.now() - startedAt) / 1000,
          kept: ok ? undefined : cluster.dir,
        },
      ];
    } finally {
      await cluster.close(!ok || env.keep);
    }
  },
};
