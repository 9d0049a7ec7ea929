// Every supervisor on one RedisStore blocks for work (BZPOPMIN) on a connection of its own: one's
// idle wait never holds up another's, nor does one's stop() cut another's wait. The stop/start
// cases on both stores are in test/supervisor/restart.test.ts.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually, sleep, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('blocking connections', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  /** Connections of this test's server blocked in BZPOPMIN (idle supervisors' waits). */
  const blockedWaits = async () => {
    const list = (await h.raw.client('LIST')) as string;
    return list.split('\n').filter((l) => l.includes('cmd=bzpopmin')).length;
  };

  it('blocks each idle supervisor of one store on its own connection, and both wake at once', async () => {
    h = new Harness(redis);
    const ranAt = new Map<string, number>();
    const job = defineJob({ name: 'j', work: ({ queue }) => void ranAt.set(queue, performance.now()) });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job], queue: 'qa', idleWaitMs: 5000 });
    await h.started({ jobs: [job], queue: 'qb', idleWaitMs: 5000 });
    await eventually(async () => (await blockedWaits()) === 2, 3000);

    // Whichever began waiting second is picked up as fast as the first.
    for (const queue of ['qb', 'qa']) {
      const t0 = performance.now();
      await client.waitForResult(await client.enqueue('j', null, { queue }), { queue, timeoutMs: 8000 });
      const latency = ranAt.get(queue)! - t0;
      assert.ok(
        latency < 1500,
        `${queue} picked up ${Math.round(latency)} ms after enqueue (idle wait 5000 ms)`,
      );
      await eventually(async () => (await blockedWaits()) === 2, 3000);
    }
  });

  it("does not cut another supervisor's wait when one stops", async () => {
    h = new Harness(redis);
    let ranAt = 0;
    const job = defineJob({ name: 'j', work: () => void (ranAt = performance.now()) });
    const client = h.client({ jobs: [job] });
    const a = await h.started({ jobs: [job], queue: 'qa', idleWaitMs: 5000 });
    await h.started({ jobs: [job], queue: 'qb', idleWaitMs: 5000 });
    await eventually(async () => (await blockedWaits()) === 2, 3000);
    await a.stop();
    await sleep(100);
    assert.equal(await blockedWaits(), 1, "the other supervisor's wait goes on");
    const t0 = performance.now();
    await client.waitForResult(await client.enqueue('j', null, { queue: 'qb' }), {
      queue: 'qb',
      timeoutMs: 8000,
    });
    assert.ok(ranAt - t0 < 1500, `picked up ${Math.round(ranAt - t0)} ms after enqueue`);
  });
});
