// A supervisor can be stopped and started again, and every supervisor on one store blocks for
// work on a connection of its own: one's idle wait never holds up another's, nor does one's
// stop() cut another's wait.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually, sleep, startRedis, type TestRedis } from '../support/redis.js';
import { Harness, gate, untilAborted } from '../support/harness.js';

describe('restart and blocking connections', () => {
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

  it('runs jobs again, and hears cancels once, after stop() and start()', async () => {
    h = new Harness(redis);
    const started = gate();
    const aborts: string[] = [];
    const job = defineJob({ name: 'j', work: ({ input }: { input: number }) => input + 1 });
    const long = defineJob({
      name: 'long',
      work: async ({ signal }) => {
        signal.addEventListener('abort', () => aborts.push((signal.reason as { reason: string }).reason));
        started.open();
        return untilAborted(signal);
      },
    });
    const jobs = [job, long];
    const client = h.client({ jobs });
    // Counts the control messages delivered to the supervisor.
    const messages: string[] = [];
    const subscribe = h.store.subscribeControl.bind(h.store);
    h.store.subscribeControl = (queue, workerId, onMessage) =>
      subscribe(queue, workerId, (m) => {
        messages.push(m);
        onMessage(m);
      });
    // A heartbeat far away: a cancel in time can only come by the control channel.
    const sup = await h.started({ jobs, leaseMs: 15_000, heartbeatMs: 5000 });
    const first = await client.enqueue('j', 1);
    assert.equal((await client.waitForResult(first, { timeoutMs: 5000 })).output, 2);
    await sup.stop({ graceMs: 1000 });

    await sup.start();
    const again = await client.enqueue('j', 41);
    assert.equal((await client.waitForResult(again, { timeoutMs: 5000 })).output, 42);
    // The control channel works after the restart, once: a cancel comes before any heartbeat.
    const id = await client.enqueue('long', null);
    await started.promise;
    const t0 = performance.now();
    await client.cancel(id);
    assert.equal((await client.waitForResult(id, { timeoutMs: 5000 })).status, 'cancelled');
    assert.ok(performance.now() - t0 < 2500, 'cancelled by the control message, not a heartbeat');
    assert.deepEqual(aborts, ['cancel']);
    assert.deepEqual(messages, [`cancel ${id}`], 'delivered once');
    await sup.stop({ graceMs: 1000 });
    assert.deepEqual(await sup.stop(), { forced: false, requeued: 0 }, 'a second stop() is a no-op');
  });

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
