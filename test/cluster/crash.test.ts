// Several worker processes on a private 3-master Redis Cluster, each serving three queues on
// three masters; one is killed (SIGKILL) with jobs in flight. Every job ends exactly once: done,
// with one `done` event on its queue's stream, the killed worker's jobs requeued when their
// leases passed and finished by the survivors.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Harness } from '../support/harness.js';
import { eventually } from '../support/redis.js';
import { startCluster, type TestRedisCluster } from '../support/redisCluster.js';
import { killFixture, spawnFixture, type Fixture } from '../support/spawnFixture.js';

const WORKERS = 3;
const PER_QUEUE = 60;

describe('worker processes on a 3-master cluster, one killed mid-run', () => {
  let cluster: TestRedisCluster;
  let h: Harness | undefined;
  let workers: Fixture[] = [];
  before(async () => (cluster = await startCluster()));
  after(async () => cluster.stop());
  afterEach(async () => {
    for (const w of workers) killFixture(w.child);
    workers = [];
    await h?.close();
  });

  it(
    'ends every job exactly once when one of three workers is killed with SIGKILL',
    { timeout: 90_000 },
    async () => {
      h = new Harness(cluster);
      const queues = await cluster.queuesOnDistinctMasters(3);
      const env = {
        REDIS_CLUSTER: cluster.options.nodes
          .map((n) => `${(n as { host: string }).host}:${(n as { port: number }).port}`)
          .join(','),
        PREFIX: h.prefix,
        QUEUES: queues.join(','),
        MACHINIST_LOG: 'silent',
      };
      workers = Array.from({ length: WORKERS }, () => spawnFixture('clusterWorker.ts', env));
      await Promise.all(workers.map((w) => w.ready));
      const client = h.client();
      const ids: { id: string; queue: string }[] = [];
      for (const queue of queues) {
        const made = await client.enqueueMany(
          Array.from({ length: PER_QUEUE }, (_, n) => ({
            machine: 'tick',
            input: { n },
            options: { queue },
          })),
        );
        ids.push(...made.map((id) => ({ id, queue })));
      }
      // Kill one worker once it has started jobs on every queue (some of them still running).
      const victim = workers[0]!;
      await eventually(() => victim.started.size >= 4, 20_000).catch((err: unknown) => {
        throw new Error(`started: ${workers.map((w) => w.started.size).join(',')}; ${String(err)}`);
      });
      const exited = new Promise((r) => victim.child.once('exit', r));
      victim.child.kill('SIGKILL');
      await exited;

      for (const { id, queue } of ids) {
        const rec = await client.waitForResult(id, { queue, timeoutMs: 30_000 });
        assert.equal(rec.status, 'done', `${id} on ${queue}`);
      }
      let requeued = 0;
      for (const queue of queues) {
        const events = await h.store.readEvents(queue, '0', 0, 100_000);
        const ends = new Map<string, number>();
        for (const e of events)
          if (e.type === 'done' || e.type === 'failed' || e.type === 'cancelled')
            ends.set(e.jobId, (ends.get(e.jobId) ?? 0) + 1);
          else if (e.type === 'lease-requeued') requeued++;
        const mine = ids.filter((j) => j.queue === queue);
        assert.equal(ends.size, mine.length, `every job of ${queue} ended`);
        assert.ok(
          [...ends.values()].every((n) => n === 1),
          `each job of ${queue} ended once`,
        );
      }
      assert.ok(victim.started.size > 0, 'the killed worker had taken jobs');
      // The killed worker's unfinished jobs came back through their leases (how many depends on
      // when it died; a number for the report, not a bound).
      console.log(`killed worker started ${victim.started.size} jobs; ${requeued} lease requeues`);
    },
  );
});
