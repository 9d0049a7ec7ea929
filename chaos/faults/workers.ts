// Faults of worker processes: SIGKILL mid-job (T1), SIGTERM once and twice (T2), a worker
// frozen with SIGSTOP for three leases (T3). Workers are real processes, signalled by group.

import { Cluster, type WorkerHandle } from '../cluster.js';
import { WorkerKiller, readyWorkers } from '../kills.js';
import { claimedAgain, entryAfter, heldAt, percentile, sleep, writeTimes } from '../lines.js';
import { produceMix, rng } from '../mix.js';
import {
  contractTargets,
  exampleNotes,
  settleAndCheck,
  target,
  type Result,
  type RunEnv,
  type Scenario,
} from '../scenario.js';
import { GRACE_MS, TIMING } from '../workload.js';

const SETTLE_MS = 120_000;

export const t1: Scenario = {
  id: 'T1',
  title: 'SIGKILL of workers mid-job',
  quick: true,
  async run(env: RunEnv): Promise<Result[]> {
    const jobs = env.quick ? 1000 : 10_000;
    const kills = env.quick ? 10 : 100;
    const startedAt = Date.now();
    const cluster = await Cluster.start(env.worker);
    let ok = false;
    try {
      await Promise.all([0, 1, 2, 3].map(() => cluster.spawnWorker()));
      await produceMix(cluster, { jobs, seed: env.seed });
      const rand = rng(env.seed + 1);
      const killed: { pid: number; at: number }[] = [];
      // Keeps four processes: each killed one is replaced at once.
      const killer = new WorkerKiller(cluster, rand);
      while (killed.length < kills) {
        await sleep(150);
        const k = killer.killOne();
        if (k) killed.push(k);
      }
      await killer.replaced();
      const { figures: f, settled, lines } = await settleAndCheck(cluster, SETTLE_MS);
      const got = await cluster.collect(lines);

      // Jobs in flight at the kills (held by the killed worker), and how soon each was requeued.
      let inFlight = 0;
      const requeueMs: number[] = [];
      const bound = TIMING.leaseMs + TIMING.reaperIntervalMs + 200;
      const late: string[] = [];
      for (const k of killed) {
        const held = heldAt(lines, k.pid, k.at);
        inFlight += held.length;
        for (const h of held) {
          const log = got.logs.get(h.id);
          const e = entryAfter(log, 'lease-requeued', k.at - 50);
          const story = () =>
            `${h.id} claimed ${h.claimedAt - k.at} ms, then ${(log ?? [])
              .filter((x) => x.at >= h.claimedAt - 5)
              .map((x) => `${x.type} ${x.at - k.at}`)
              .join(', ')} (ms from the kill)`;
          if (e) {
            requeueMs.push(e.at - k.at);
            if (e.at - k.at > bound && late.length < 5) {
              const reaps = lines
                .filter((l) => l.kind === 'W' && Number(l.f[2]) >= k.at + 800 && Number(l.f[1]) <= e.at)
                .map((l) => `${l.f[0]}:${Number(l.f[1]) - k.at}-${Number(l.f[2]) - k.at}/${l.f[3]}`);
              late.push(`late: ${story()}; reaper calls from kill+800 ms: ${reaps.join(' ')}`);
            }
          }
        }
      }
      const maxRequeue = requeueMs.length ? Math.max(...requeueMs) : 0;
      const targets = [
        target('all work settled', settled, settled ? 'yes' : `not within ${SETTLE_MS} ms`),
        ...contractTargets(f, cluster.unexpectedExits),
        target(
          'duplicates <= jobs in flight at the kills',
          f.duplicates <= inFlight,
          `${f.duplicates} <= ${inFlight}`,
        ),
        target('0 unexplained duplicates', f.unexplained === 0, f.unexplained),
        target(
          `requeue <= lease + reaper + 200 ms (${bound} ms)`,
          maxRequeue <= bound,
          `max ${maxRequeue} ms, p50 ${percentile(requeueMs, 50)} ms over ${requeueMs.length} jobs`,
        ),
      ];
      ok = targets.every((t) => t.ok);
      return [
        {
          id: 'T1',
          title: this.title,
          procedure:
            `${jobs} jobs (80% simple, 10% flows with a timer and an event, 10% fan-outs of 4, a quarter ` +
            `of them cancelled) on 4 worker processes x concurrency 4; every 150 ms a random worker ` +
            `is SIGKILLed (its process group; never the last one running) and a new one started, ` +
            `${kills} times.`,
          targets,
          figures: f,
          notes: [...exampleNotes(f), ...late],
          seconds: (Date.now() - startedAt) / 1000,
          kept: ok ? undefined : cluster.dir,
        },
      ];
    } finally {
      await cluster.close(!ok || env.keep);
    }
  },
};

/** T2: a busy worker gets SIGTERM (variant: and a second one 1 s later). */
async function sigterm(env: RunEnv, twice: boolean): Promise<Result> {
  const startedAt = Date.now();
  const cluster = await Cluster.start(env.worker);
  let ok = false;
  try {
    await Promise.all([0, 1, 2].map(() => cluster.spawnWorker()));
    // Long jobs outlast the grace period, so some are held when it ends; simple jobs keep the
    // other workers turning over (a free slot for the requeued jobs within a second).
    await cluster.enqueue(Array.from({ length: 6 }, () => ({ machine: 'long', input: {} })));
    const producing = produceMix(cluster, {
      jobs: env.quick ? 600 : 1500,
      seed: env.seed + 2,
      flows: 0.05,
      fans: 0.05,
      rate: 100,
    });
    // The victim: a worker running a long job (the first one seen to start one).
    let victim: WorkerHandle | undefined;
    for (let n = 0; n < 400 && !victim; n++) {
      await sleep(50);
      const lines = cluster.lines();
      const e = lines.find((l) => l.kind === 'E' && isLong(lines, l.f[0]!));
      if (e) victim = cluster.workers.get(Number(e.f[3]));
    }
    if (!victim) throw new Error('no worker started a long job within 20 s');
    const signalAt = Date.now();
    cluster.signal(victim, 'SIGTERM');
    let secondAt: number | undefined;
    if (twice) {
      await sleep(1000);
      secondAt = Date.now();
      cluster.signal(victim, 'SIGTERM');
    }
    const exit = await victim.proc.exited;
    cluster.fault('sigterm', victim.pid, signalAt, exit.at);
    await producing;
    const { figures: f, settled, lines } = await settleAndCheck(cluster, SETTLE_MS);
    const got = await cluster.collect(lines);

    const lateStarts = lines.filter(
      (l) => l.kind === 'E' && Number(l.f[3]) === victim.pid && Number(l.f[4]) > signalAt + 50,
    ).length;
    const exitMs = exit.at - (secondAt ?? signalAt);
    const exitBound = twice ? 1000 : GRACE_MS + 1000;
    // The jobs it held when it let go: requeued ('requeued', not 'lease-requeued'), when.
    const releasedAt = secondAt ?? signalAt + GRACE_MS;
    const held = heldAt(lines, victim.pid, releasedAt - 100);
    const requeueMs: number[] = [];
    const pickupMs: number[] = [];
    let leaseRequeued = 0;
    for (const h of held) {
      const log = got.logs.get(h.id);
      const e = entryAfter(log, 'requeued', signalAt);
      if (entryAfter(log, 'lease-requeued', signalAt)) leaseRequeued++;
      if (!e) continue;
      requeueMs.push(e.at - releasedAt);
      const again = claimedAgain(lines, h.id, victim.pid, e.at - 50);
      if (again !== undefined) pickupMs.push(again - e.at);
    }
    const maxPickup = pickupMs.length ? Math.max(...pickupMs) : NaN;
    const targets = [
      target('all work settled', settled, settled ? 'yes' : `not within ${SETTLE_MS} ms`),
      ...contractTargets(f, cluster.unexpectedExits),
      target('no work started after the signal', lateStarts === 0, lateStarts),
      target(
        twice ? 'exit within 1 s of the second signal' : `exit within grace + 1 s (${exitBound} ms)`,
        exitMs <= exitBound && exit.code === 0,
        `${exitMs} ms (exit code ${exit.code})`,
      ),
      target(
        'its jobs requeued at once, not after lease expiry',
        held.length > 0 && requeueMs.length === held.length && leaseRequeued === 0,
        `${requeueMs.length} of ${held.length} requeued, ${Math.max(0, ...requeueMs)} ms after ${twice ? 'the second signal' : 'the grace period'}; ${leaseRequeued} lease-requeued`,
      ),
      target(
        'picked up by another worker within 1 s',
        pickupMs.length === held.length && maxPickup <= 1000,
        `${pickupMs.length} of ${held.length}, max ${maxPickup} ms`,
      ),
      target('0 unexplained duplicates', f.unexplained === 0, f.unexplained),
    ];
    ok = targets.every((t) => t.ok);
    return {
      id: twice ? 'T2b' : 'T2',
      title: twice ? 'SIGTERM, then a second SIGTERM' : 'SIGTERM of a busy worker',
      procedure:
        `3 workers x 4; 6 jobs of 10 s and a stream of short jobs (100/s); once the victim runs a ` +
        `10 s job it gets SIGTERM (grace ${GRACE_MS} ms)` +
        (twice ? ', and a second SIGTERM 1 s later (stop at once).' : '.'),
      targets,
      figures: f,
      notes: exampleNotes(f),
      seconds: (Date.now() - startedAt) / 1000,
      kept: ok ? undefined : cluster.dir,
    };
  } finally {
    await cluster.close(!ok || env.keep);
  }
}

function isLong(lines: ReturnType<Cluster['lines']>, id: string): boolean {
  return lines.some((l) => l.kind === 'Q' && l.f[0] === id && l.f[1] === 'long');
}

export const t2: Scenario = {
  id: 'T2',
  title: 'SIGTERM of a busy worker',
  quick: true,
  async run(env) {
    return [await sigterm(env, false), await sigterm(env, true)];
  },
};

export const t3: Scenario = {
  id: 'T3',
  title: 'A worker frozen (SIGSTOP) for 3 leases',
  quick: true,
  async run(env) {
    const cycles = env.quick ? 3 : 10;
    const startedAt = Date.now();
    const cluster = await Cluster.start(env.worker);
    let ok = false;
    try {
      await Promise.all([0, 1, 2, 3].map(() => cluster.spawnWorker()));
      const rand = rng(env.seed + 3);
      // Jobs of 50-300 ms: a frozen worker is always holding some.
      const producing = produceMix(cluster, {
        jobs: cycles * 350,
        seed: env.seed + 3,
        rate: 100,
        ms: [50, 300],
      });
      const stops: { pid: number; from: number; to: number }[] = [];
      for (let i = 0; i < cycles; i++) {
        await sleep(500);
        const live = readyWorkers(cluster);
        const w = live[Math.floor(rand() * live.length)]!;
        const from = Date.now();
        cluster.signal(w, 'SIGSTOP', false);
        await sleep(3 * TIMING.leaseMs);
        cluster.signal(w, 'SIGCONT', false);
        const to = Date.now();
        cluster.fault('sigstop', w.pid, from, to);
        stops.push({ pid: w.pid, from, to });
      }
      await producing;
      const { figures: f, settled, lines } = await settleAndCheck(cluster, SETTLE_MS);

      // Jobs the frozen worker held, claimed by another meanwhile: every write of the old token
      // sent after that claim MUST be refused. (A write sent before the freeze and answered
      // after it was applied before the takeover: its late reply is no zombie write.)
      let taken = 0;
      let refused = 0;
      let accepted = 0;
      for (const s of stops) {
        for (const h of heldAt(lines, s.pid, s.from)) {
          const again = claimedAgain(lines, h.id, s.pid, s.from);
          if (again === undefined || again > s.to) continue;
          taken++;
          for (const l of lines) {
            if (l.f[1] !== h.token || l.f[0] !== h.id) continue;
            if (l.kind !== 'C' && l.kind !== 'F' && l.kind !== 'P' && l.kind !== 'R') continue;
            if (writeTimes(l).sent < again) continue;
            if (l.kind === 'R') refused++;
            else if (l.kind === 'C' || l.kind === 'F' || l.kind === 'P') accepted++;
          }
        }
      }
      const targets = [
        target('all work settled', settled, settled ? 'yes' : `not within ${SETTLE_MS} ms`),
        ...contractTargets(f, cluster.unexpectedExits),
        target(
          "the zombie's writes refused as lease lost",
          accepted === 0,
          // A zombie whose heartbeat hears `lost` first aborts the run and writes nothing at all.
          `${accepted} accepted, ${refused} refused, for ${taken} jobs taken over while it was frozen`,
        ),
        target('0 unexplained duplicates', f.unexplained === 0, f.unexplained),
      ];
      ok = targets.every((t) => t.ok);
      return [
        {
          id: 'T3',
          title: this.title,
          procedure:
            `4 workers x 4, a stream of jobs of 50-300 ms (100/s); ${cycles} times a random worker is ` +
            `SIGSTOPped for 3 s (3x the lease), then SIGCONTed.`,
          targets,
          figures: f,
          notes: exampleNotes(f),
          seconds: (Date.now() - startedAt) / 1000,
          kept: ok ? undefined : cluster.dir,
        },
      ];
    } finally {
      await cluster.close(!ok || env.keep);
    }
  },
};
