// T7: a foreign producer writes poison straight into Redis, beside a normal workload: a queued
// id with no record, input that is not JSON, a record whose fields have the wrong types (and
// options that are not JSON), input
// nested 10,000 deep, a 20 MiB input, an unknown machine, an unknown version with a snapshot,
// and a snapshot naming a state the machine does not have. Each must end failed (a dead letter
// or set aside as broken) with a reason, after at most one claim, and no worker may die.

import { Cluster, QUEUE } from '../cluster.js';
import { sleep } from '../lines.js';
import { produceMix } from '../mix.js';
import { contractTargets, exampleNotes, settleAndCheck, target, type Scenario } from '../scenario.js';

/** The normal band's front (band 2 * 2^44): a poison record is claimed soon. */
const SCORE = 2 * 2 ** 44;

interface Poison {
  name: string;
  /** The record's fields; undefined: no record at all (only the queue entry). */
  fields?: Record<string, string>;
}

function poisons(snapshot: string, deep: number, bigBytes: number): Poison[] {
  const now = String(Date.now());
  const base = { st: 'queued', qs: String(SCORE), ma: '4', ca: now, v: '1', m: 'simple', in: '{}' };
  const vanished = JSON.parse(snapshot) as { w?: { value?: unknown } };
  if (vanished.w) vanished.w.value = 'gone';
  return [
    { name: 'missing-hash' },
    { name: 'non-json', fields: { ...base, in: '{"ms": 5, oops' } },
    { name: 'schema-invalid', fields: { ...base, v: 'abc', ma: 'many', a: '-3', lr: 'x', qs: 'front' } },
    { name: 'bad-options', fields: { ...base, opt: '{oops' } },
    { name: 'deep-nesting', fields: { ...base, in: '['.repeat(deep) + ']'.repeat(deep) } },
    { name: 'huge-20MiB', fields: { ...base, in: JSON.stringify({ blob: 'x'.repeat(bigBytes) }) } },
    { name: 'unknown-machine', fields: { ...base, m: 'noSuchMachine' } },
    { name: 'unknown-version', fields: { ...base, m: 'flow', v: '99', sn: snapshot } },
    { name: 'vanished-state', fields: { ...base, m: 'flow', sn: JSON.stringify(vanished) } },
  ];
}

export const t7: Scenario = {
  id: 'T7',
  title: 'Poison records from a foreign producer',
  quick: true,
  async run(env) {
    const startedAt = Date.now();
    const cluster = await Cluster.start(env.worker);
    let ok = false;
    try {
      await Promise.all([0, 1].map(() => cluster.spawnWorker()));
      // A real flow's parked snapshot, to copy into the records that carry one.
      const [template] = await cluster.enqueue([{ machine: 'flow', input: { ms: 5 } }]);
      let snapshot: string | null = null;
      for (let i = 0; i < 200 && !snapshot; i++) {
        await sleep(50);
        const rec = await cluster.store.getJob(template!, QUEUE);
        if (rec?.status === 'waiting')
          snapshot = await cluster.redis.admin.hget(cluster.store.keys(QUEUE).job(template!), 'sn');
      }
      if (!snapshot) throw new Error('the template flow never parked');
      cluster.sendLater(template!, 1, 0);

      const producing = produceMix(cluster, { jobs: env.quick ? 600 : 1500, seed: env.seed + 7, rate: 150 });
      producing.catch(() => undefined);
      await sleep(500);
      const list = poisons(snapshot, 10_000, 20 * 1024 * 1024);
      const k = cluster.store.keys(QUEUE);
      for (const p of list) {
        const id = `poison-${p.name}`;
        if (p.fields) await cluster.redis.admin.hset(k.job(id), p.fields);
        await cluster.redis.admin.zadd(k.queued, SCORE, id);
        await cluster.redis.admin.zadd(k.marker, 0, 'w');
      }
      await producing;
      const { figures: f, settled, lines } = await settleAndCheck(cluster, 120_000);

      const broken = new Map((await cluster.store.broken(QUEUE, 100)).map((b) => [b.id, b.reason]));
      const rows: string[] = [];
      let handled = 0;
      for (const p of list) {
        const id = `poison-${p.name}`;
        const rec = await cluster.store.getJob(id, QUEUE);
        const claims = lines.filter((l) => l.kind === 'K' && l.f[0] === id).length;
        const reason = broken.get(id) ?? rec?.error?.message ?? '';
        const status = rec?.status ?? (broken.has(id) ? 'broken (no record)' : 'gone');
        const where = broken.has(id) ? 'broken' : rec?.status === 'failed' ? 'dead' : status;
        const good = (where === 'broken' || where === 'dead') && reason !== '' && claims <= 1;
        if (good) handled++;
        rows.push(
          `${p.name}: ${where}${rec?.error?.code ? ` ${rec.error.code}` : ''}, ${claims} claim(s): ${reason.slice(0, 140)}`,
        );
      }
      const targets = [
        target('all work settled', settled, settled ? 'yes' : 'no'),
        ...contractTargets(f, cluster.unexpectedExits),
        target(
          'each poison record moved to broken/failed with a reason after at most one attempt',
          handled === list.length,
          `${handled} of ${list.length}`,
        ),
      ];
      ok = targets.every((t) => t.ok);
      return [
        {
          id: 'T7',
          title: this.title,
          procedure:
            `2 workers x 4 run the mixed workload (150 jobs/s) while ${list.length} records are written ` +
            `straight into Redis and queued: ${list.map((p) => p.name).join(', ')}.`,
          targets,
          figures: f,
          notes: [...rows, ...exampleNotes(f)],
          seconds: (Date.now() - startedAt) / 1000,
          kept: ok ? undefined : cluster.dir,
        },
      ];
    } finally {
      await cluster.close(!ok || env.keep);
    }
  },
};
