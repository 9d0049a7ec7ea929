// Redis only: a Redis server that refuses writes or goes away.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually, sleep, startRedis, type TestRedis } from '../support/redis.js';
import { Harness, gate } from '../support/harness.js';

// These reconfigure the server (maxmemory): they need the private one.
const skip = process.env.REDIS_URL ? 'needs a private redis-server' : false;

describe('temporary Redis errors', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    await h.raw.config('SET', 'maxmemory', '0');
    await h.close();
  });

  const usedMemory = async (): Promise<number> =>
    Number(/used_memory:(\d+)/.exec(await h.raw.info('memory'))?.[1]);

  /** Makes Redis answer OOM to every write that grows memory: a 4 MB key, then a maxmemory that
   * only deleting it gets back under. */
  async function fillRedis(): Promise<void> {
    const before = await usedMemory();
    await h.raw.set(h.key('filler'), 'x'.repeat(4 * 1024 * 1024));
    await h.raw.config('SET', 'maxmemory', String(before + 1024 * 1024));
    await assert.rejects(h.raw.set(h.key('probe'), '1'), { message: /^OOM/ });
  }

  it(
    'rides out Redis answering OOM: every job ends done, none dead-lettered, no lease requeued',
    { skip },
    async () => {
      h = new Harness(redis);
      const job = defineJob({
        name: 'steady',
        work: async ({ input }) => {
          await sleep(50);
          return input;
        },
      });
      const client = h.client({ jobs: [job] });
      const ids = await client.enqueueMany(
        Array.from({ length: 60 }, (_, i) => ({ machine: 'steady', input: i })),
      );
      // Leases outlast the OOM window, so a requeue could only come from a write the pump dropped.
      const sup = h.supervisor({ jobs: [job], leaseMs: 5000, heartbeatMs: 1000, reaperIntervalMs: 200 });
      let oomReplies = 0;
      const commit = h.store.commit.bind(h.store);
      h.store.commit = async (queue, ops, claim) => {
        try {
          return await commit(queue, ops, claim);
        } catch (err) {
          if (/^OOM/.test((err as Error).message)) oomReplies++;
          throw err;
        }
      };
      await sup.start();
      await eventually(async () => (await h.raw.zcard(h.key('done'))) >= 8, 10_000);
      await fillRedis();
      await sleep(2500);
      await h.raw.del(h.key('filler'));
      await eventually(async () => (await h.raw.zcard(h.key('done'))) === ids.length, 20_000);

      assert.ok(oomReplies > 0, 'the pump met OOM replies during the window');
      assert.equal(await h.raw.zcard(h.key('dead')), 0, 'nothing dead-lettered');
      assert.equal(await h.raw.zcard(h.key('failed')), 0, 'nothing failed');
      for (const id of ids) {
        const rec = await client.get(id);
        assert.equal(rec?.status, 'done', `job ${id}`);
        assert.equal(rec?.leaseRequeues, 0, `job ${id} was never requeued by the reaper`);
        assert.equal(await h.raw.hget(h.key(`job:${id}`), 'lr'), null);
        const log = await client.events(id);
        assert.ok(!log.some((e) => e.type === 'lease-requeued'), `job ${id}: ${JSON.stringify(log)}`);
      }
    },
  );

  it('drops only the write a script fails on, and the commits that find it claim nothing', async () => {
    h = new Harness(redis);
    const release = gate();
    const held = defineJob({ name: 'held', work: () => release.promise.then(() => 'ok') });
    const client = h.client({ jobs: [held] });
    const ids = await client.enqueueMany(Array.from({ length: 4 }, () => ({ machine: 'held' })));
    const bad = ids[1]!;
    // Claim-only commits are held back while the bad write is looked for, so slots stay free
    // and the queue unvisited: a suspect's commit that asked for jobs would show it.
    let holding = false;
    const searched = gate();
    const sent: { ids: string[]; claims: number; error?: string }[] = [];
    const commit = h.store.commit.bind(h.store);
    h.store.commit = async (queue, ops, claim) => {
      const entry = {
        ids: ops.map((o) => o.id),
        claims: claim?.max ?? 0,
        error: undefined as string | undefined,
      };
      sent.push(entry);
      if (holding && ops.length === 0) await Promise.race([searched.promise, sleep(5000)]);
      try {
        return await commit(queue, ops, claim);
      } catch (err) {
        entry.error = (err as Error).message;
        throw err;
      } finally {
        if (ops.length === 1 && ids.every((id) => sent.some((c) => c.ids.length === 1 && c.ids[0] === id)))
          searched.open();
      }
    };
    await h.started({ jobs: [held], concurrency: 20 });
    await eventually(async () => (await h.raw.zcard(h.key('active'))) === 4);
    // A record the commit script cannot read: WRONGTYPE inside the script, on that write only.
    await h.raw.del(h.key(`job:${bad}`));
    await h.raw.set(h.key(`job:${bad}`), 'not a hash');
    holding = true;
    release.open();
    const good = ids.filter((id) => id !== bad);
    await eventually(async () => {
      const recs = await Promise.all(good.map((id) => client.get(id)));
      return recs.every((r) => r?.status === 'done');
    }, 10_000);

    const first = sent.findIndex((c) => c.error !== undefined);
    assert.ok(first >= 0, 'the batch holding the bad write failed');
    assert.match(sent[first]!.error!, /WRONGTYPE/);
    // Every commit after it that carried one of that batch's writes went alone and claimed nothing.
    const suspects = new Set(sent[first]!.ids);
    const isolating = sent.slice(first + 1).filter((c) => c.ids.some((id) => suspects.has(id)));
    assert.ok(isolating.length >= 1);
    for (const c of isolating) {
      assert.equal(c.ids.length, 1, JSON.stringify(c));
      assert.equal(c.claims, 0, `an isolating commit asked for jobs: ${JSON.stringify(c)}`);
    }
    assert.deepEqual(
      isolating.filter((c) => c.error).map((c) => c.ids),
      [[bad]],
      'only the bad write failed again',
    );
    await h.raw.del(h.key(`job:${bad}`));
  });
});
