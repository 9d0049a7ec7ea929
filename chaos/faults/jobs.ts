// Faults of the jobs themselves: deterministic failures and a retry delayed 10x the lease (T10),
// jobs running 10x the lease with healthy heartbeats, and one that blocks its worker's event
// loop 2.5x the lease (T11).

import { Cluster } from '../cluster.js';
import { produceMix } from '../mix.js';
import { contractTargets, exampleNotes, settleAndCheck, target, type Scenario } from '../scenario.js';
import { TIMING } from '../workload.js';

/** Each job's runs (E lines of part `part`), in time order. */
function runsOf(lines: ReturnType<Cluster['lines']>, part: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const l of lines) {
    if (l.kind !== 'E' || l.f[1] !== part) continue;
    const list = out.get(l.f[0]!) ?? [];
    list.push(Number(l.f[4]));
    out.set(l.f[0]!, list);
  }
  for (const list of out.values()) list.sort((a, b) => a - b);
  return out;
}

export const t10: Scenario = {
  id: 'T10',
  title: 'Retries: deterministic failure, a retry delayed 10x the lease',
  quick: true,
  async run(env) {
    const startedAt = Date.now();
    const cluster = await Cluster.start(env.worker);
    let ok = false;
    try {
      await Promise.all([0, 1].map(() => cluster.spawnWorker()));
      const failing = await cluster.enqueue(
        Array.from({ length: env.quick ? 20 : 100 }, () => ({ machine: 'failing', input: {} })),
      );
      const flaky = await cluster.enqueue(
        Array.from({ length: env.quick ? 5 : 20 }, () => ({ machine: 'flaky', input: {} })),
      );
      // Beside other work, so the delayed retries wait among jobs being claimed and reaped.
      await produceMix(cluster, { jobs: env.quick ? 500 : 1500, seed: env.seed + 10, rate: 100 });
      const { figures: f, settled, lines } = await settleAndCheck(cluster, 120_000);
      const runs = runsOf(lines, 'run');
      const dead = new Set((await cluster.client.deadLetters({ limit: 1000 })).map((d) => d.id));
      const badFailing = failing.filter((id) => runs.get(id)?.length !== 4 || !dead.has(id));
      const delay = 10 * TIMING.leaseMs;
      const badFlaky = flaky.filter((id) => {
        const r = runs.get(id) ?? [];
        return r.length !== 2 || r[1]! - r[0]! < delay - 50;
      });
      const gaps = flaky.map((id) => {
        const r = runs.get(id) ?? [];
        return r.length === 2 ? r[1]! - r[0]! : NaN;
      });
      const targets = [
        target('all work settled', settled, settled ? 'yes' : 'no'),
        ...contractTargets(f, cluster.unexpectedExits),
        target(
          'failing (maxAttempts 4): exactly 4 runs, then a dead letter',
          badFailing.length === 0,
          `${failing.length - badFailing.length} of ${failing.length}`,
        ),
        target(
          `a retry delayed 10x the lease (${delay} ms) runs exactly twice, the second after the delay`,
          badFlaky.length === 0,
          `${flaky.length - badFlaky.length} of ${flaky.length}; gaps ${Math.min(...gaps)}-${Math.max(...gaps)} ms`,
        ),
      ];
      ok = targets.every((t) => t.ok);
      return [
        {
          id: 'T10',
          title: this.title,
          procedure:
            `2 workers x 4; ${failing.length} jobs that always throw (maxAttempts 4, fixed 50 ms backoff), ` +
            `${flaky.length} that throw on attempt 1 and are retried after ${delay} ms, beside the mixed workload.`,
          targets,
          figures: f,
          notes: [
            ...badFailing.slice(0, 3).map((id) => `failing ${id}: ${runs.get(id)?.length ?? 0} runs`),
            ...badFlaky.slice(0, 3).map((id) => `flaky ${id}: runs at ${(runs.get(id) ?? []).join(', ')}`),
            ...exampleNotes(f),
          ],
          seconds: (Date.now() - startedAt) / 1000,
          kept: ok ? undefined : cluster.dir,
        },
      ];
    } finally {
      await cluster.close(!ok || env.keep);
    }
  },
};

export const t11: Scenario = {
  id: 'T11',
  title: 'Long jobs: healthy heartbeats, and a blocked event loop',
  quick: true,
  async run(env) {
    const out = [];
    // Healthy: 10 s jobs (10x the lease) whose heartbeats run.
    {
      const startedAt = Date.now();
      const cluster = await Cluster.start(env.worker);
      let ok = false;
      try {
        await Promise.all([0, 1].map(() => cluster.spawnWorker()));
        const ids = await cluster.enqueue(
          Array.from({ length: env.quick ? 4 : 8 }, () => ({ machine: 'long', input: {} })),
        );
        await produceMix(cluster, { jobs: env.quick ? 300 : 600, seed: env.seed + 11, rate: 50 });
        const { figures: f, settled } = await settleAndCheck(cluster, 120_000);
        const got = await cluster.collect(cluster.lines());
        const reclaims = ids.reduce(
          (n, id) => n + (got.logs.get(id) ?? []).filter((e) => e.type === 'lease-requeued').length,
          0,
        );
        const targets = [
          target('all work settled', settled, settled ? 'yes' : 'no'),
          ...contractTargets(f, cluster.unexpectedExits),
          target('0 reclaims of healthy 10 s jobs', reclaims === 0 && f.duplicates === 0, reclaims),
        ];
        ok = targets.every((t) => t.ok);
        out.push({
          id: 'T11',
          title: 'Jobs of 10x the lease with healthy heartbeats',
          procedure: `2 workers x 4; ${ids.length} jobs of 10 s (10x the lease) beside short jobs at 50/s.`,
          targets,
          figures: f,
          notes: exampleNotes(f),
          seconds: (Date.now() - startedAt) / 1000,
          kept: ok ? undefined : cluster.dir,
        });
      } finally {
        await cluster.close(!ok || env.keep);
      }
    }
    // Blocked: a job that spins 2.5 s (2.5x the lease) with no heartbeat, on two workers with
    // the default lease-requeue budget (5).
    {
      const startedAt = Date.now();
      const cluster = await Cluster.start(env.worker);
      let ok = false;
      try {
        await Promise.all([0, 1].map(() => cluster.spawnWorker({ maxLeaseRequeues: 5 })));
        const from = Date.now();
        // The fault under test: every run of this job blocks its worker (until the test ends).
        cluster.fault('event-loop-blocked', undefined, from, from + 120_000);
        const [id] = await cluster.enqueue([{ machine: 'blocker', input: {} }]);
        const { figures: f, settled, lines } = await settleAndCheck(cluster, 120_000);
        const rec = await cluster.store.getJob(id!, 'default');
        const runs = runsOf(lines, 'w').get(id!) ?? [];
        const refused = lines.filter((l) => l.kind === 'R' && l.f[0] === id).length;
        const what =
          `${runs.length} runs, ${refused} writes refused (lease lost); ended ${rec?.status}` +
          (rec?.error?.code ? ` ${rec.error.code}` : '') +
          ` after ${rec?.leaseRequeues ?? '?'} lease requeues, ${((Date.now() - from) / 1000).toFixed(1)} s`;
        const targets = [
          target('all work settled', settled, settled ? 'yes' : 'no'),
          target('0 double completions', f.doubleComplete === 0, f.doubleComplete),
          target('0 worker crashes', f.crashes + cluster.unexpectedExits.length === 0, f.crashes),
          // Not a target: what happens is documented (docs/RELIABILITY.md).
          target('what a loop blocked past the lease does (documented)', true, what),
        ];
        ok = targets.every((t) => t.ok);
        out.push({
          id: 'T11b',
          title: 'A job that blocks its event loop 2.5x the lease',
          procedure:
            '2 workers x 4 (maxLeaseRequeues 5, the default); one job that spins 2.5 s without yielding.',
          targets,
          figures: f,
          notes: [],
          seconds: (Date.now() - startedAt) / 1000,
          kept: ok ? undefined : cluster.dir,
        });
      } finally {
        await cluster.close(!ok || env.keep);
      }
    }
    return out;
  },
};
