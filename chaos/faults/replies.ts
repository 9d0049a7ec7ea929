// T6: replies lost after the write succeeded. Workers and the producer reach Redis through a
// loopback proxy that, for a while, closes the connection instead of relaying 2% of the
// server's reply chunks (proxy.ts): enqueues, commits, heartbeats and reaps are applied and
// their answers lost, and ioredis sends the unanswered commands again on a new connection.

import { Cluster, QUEUE } from '../cluster.js';
import { sleep } from '../lines.js';
import { produceMix } from '../mix.js';
import { ReplyDroppingProxy } from '../proxy.js';
import { contractTargets, exampleNotes, settleAndCheck, target, type Scenario } from '../scenario.js';

export const t6: Scenario = {
  id: 'T6',
  title: 'Replies dropped after the write succeeded',
  quick: true,
  async run(env) {
    const startedAt = Date.now();
    let proxy: ReplyDroppingProxy | undefined;
    const cluster = await Cluster.start(env.worker, {
      producerUrl: async (url) => {
        const u = new URL(url);
        proxy = await ReplyDroppingProxy.start({ host: u.hostname, port: Number(u.port) }, env.seed + 6);
        return proxy.url;
      },
    });
    let ok = false;
    try {
      const p = proxy!;
      await Promise.all([0, 1, 2, 3].map(() => cluster.spawnWorker({ url: p.url })));
      const seconds = env.quick ? 8 : 14;
      p.dropRate = 0.02;
      const dropFrom = Date.now();
      await produceMix(cluster, { jobs: seconds * 150, seed: env.seed + 6, rate: 150 });
      await sleep(1000);
      // Stops by itself: the proxy relays everything again, and the work settles.
      p.dropRate = 0;
      cluster.fault('reply-dropped', undefined, dropFrom, Date.now());
      const { figures: f, settled, lines } = await settleAndCheck(cluster, 120_000);

      // Exactly one job per idempotency key: every acknowledged enqueue of a key got the same
      // id, and Redis holds one record carrying that key.
      const idsByKey = new Map<string, Set<string>>();
      for (const l of lines) {
        if (l.kind !== 'Q' || l.f[2] === '-') continue;
        const set = idsByKey.get(l.f[2]!) ?? new Set<string>();
        set.add(l.f[0]!);
        idsByKey.set(l.f[2]!, set);
      }
      const recordsByKey = new Map<string, number>();
      let cursor = '0';
      do {
        const [next, keys] = await cluster.redis.admin.scan(
          cursor,
          'MATCH',
          `${cluster.prefix}:{${QUEUE}}:job:*`,
          'COUNT',
          1000,
        );
        cursor = next;
        const iks = await Promise.all(keys.map((k) => cluster.redis.admin.hget(k, 'ik')));
        for (const ik of iks) if (ik) recordsByKey.set(ik, (recordsByKey.get(ik) ?? 0) + 1);
      } while (cursor !== '0');
      let twice = 0;
      for (const [key, ids] of idsByKey) if (ids.size !== 1 || recordsByKey.get(key) !== 1) twice++;
      const counts = await cluster.store.counts(QUEUE);
      const targets = [
        target('all work settled', settled, settled ? 'yes' : 'no'),
        ...contractTargets(f, cluster.unexpectedExits),
        target(
          'exactly one job per idempotency key',
          twice === 0 && idsByKey.size === recordsByKey.size,
          `${twice} keys with another count, over ${idsByKey.size} keys (${recordsByKey.size} in Redis)`,
        ),
        target('nothing stuck active', counts.active === 0, `${counts.active} in active`),
        target('0 unexplained duplicates', f.unexplained === 0, f.unexplained),
      ];
      ok = targets.every((t) => t.ok);
      return [
        {
          id: 'T6',
          title: this.title,
          procedure:
            `4 workers x 4 and the producer (every job with an idempotency key) reach Redis through a ` +
            `proxy that drops 2% of reply chunks (closing the connection) for ${seconds + 1} s; the ` +
            `mixed workload at 150 jobs/s.`,
          targets,
          figures: f,
          notes: [
            `${p.dropped} replies dropped of ${p.dropped + p.relayed}; duplicates ${f.duplicates} ` +
              `(${f.unexplained} unexplained), refused writes ${f.refused}`,
            ...exampleNotes(f),
          ],
          seconds: (Date.now() - startedAt) / 1000,
          kept: ok ? undefined : cluster.dir,
        },
      ];
    } finally {
      await cluster.close(!ok || env.keep);
      await proxy?.stop();
    }
  },
};
