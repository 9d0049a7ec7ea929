// T8: two workers whose wall clocks are 120 s ahead and 120 s behind (faketime, libfaketime
// preloaded into the worker process). Leases, claims and durable timers are on Redis TIME, so
// neither worker steals the other's jobs nor fires a timer early or late: 0 duplicates.

import { spawnSync } from 'node:child_process';
import { Cluster } from '../cluster.js';
import { produceMix } from '../mix.js';
import { contractTargets, exampleNotes, settleAndCheck, target, type Scenario } from '../scenario.js';

export const t8: Scenario = {
  id: 'T8',
  title: 'Two workers with clocks skewed +-120 s',
  quick: true,
  async run(env) {
    if (spawnSync('faketime', ['-f', '+0s', 'true']).status !== 0)
      throw new Error(`T8 needs faketime (Debian's package faketime; .ci/run installs it)`);
    const startedAt = Date.now();
    const cluster = await Cluster.start(env.worker);
    let ok = false;
    try {
      const workers = await Promise.all([120_000, -120_000].map((skewMs) => cluster.spawnWorker({ skewMs })));
      const seconds = env.quick ? 8 : 20;
      await produceMix(cluster, { jobs: seconds * 100, seed: env.seed + 8, rate: 100, ms: [20, 200] });
      const { figures: f, settled } = await settleAndCheck(cluster, 120_000);
      const skews = workers.map(
        (w) => `${w.clockDelta >= 0 ? '+' : ''}${(w.clockDelta / 1000).toFixed(1)} s`,
      );
      const skewed = workers.every((w) => Math.abs(Math.abs(w.clockDelta) - 120_000) < 5_000);
      const targets = [
        target('workers really skewed (faketime)', skewed, skews.join(', ')),
        target('all work settled', settled, settled ? 'yes' : 'no'),
        ...contractTargets(f, cluster.unexpectedExits),
        target('0 duplicates (leases on Redis TIME)', f.duplicates === 0, f.duplicates),
      ];
      ok = targets.every((t) => t.ok);
      return [
        {
          id: 'T8',
          title: this.title,
          procedure:
            `2 workers x 4 under faketime (wall clocks +120 s and -120 s), the mixed workload with ` +
            `jobs of 20-200 ms at 100 jobs/s for ${seconds} s (flows' 150 ms durable timers included).`,
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
