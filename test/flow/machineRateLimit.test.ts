// The machine throttle (`machines: { <m>: { rateLimit } }`, `machineRateLimit` in a definition:
// one GCRA per machine of a queue; docs/flow-control.md, lua/include/lcMachineRate.lua and
// memory/machineRate.ts) on both stores: a job over its machine's rate waits in the machine's
// rate line (queued, no slot, no attempt) while other machines run; the claim says when the rate
// allows, and the line goes back then; mode 'skip' cancels it unrun, saying why. Times are the
// store's clock.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, MachinistError } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { eventually } from '../support/redis.js';

const jobs = ['a', 'b'].map((name) => defineJob({ name, work: () => 1 }));
const claim = { workerId: 'w1', max: 10, leaseMs: 60_000, loadMachines: [] };
const PER = 300;

describeOnEachStore('machine throttle', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it("holds machine a's jobs over its rate in its line while machine b's run, and wakes when a's rate allows", async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', { machines: { a: { rateLimit: { limit: 1, perMs: PER } } } });
    assert.deepEqual((await client.queueLimits('default')).limits, {
      machineRateLimits: { a: { limit: 1, perMs: PER, burst: 0 } },
    });
    const a = [await client.enqueue('a', 1), await client.enqueue('a', 2), await client.enqueue('a', 3)];
    const b = [await client.enqueue('b', 1), await client.enqueue('b', 2)];
    const first = await h.store.commit('default', [], claim);
    assert.deepEqual(
      first.claimed.map((c) => c.id),
      [a[0], b[0], b[1]],
    );
    // The idle supervisor is told when a's rate allows its next start (no polling).
    assert.ok(first.nextDueAt !== null, 'a next-due time for the machine');
    assert.ok(first.nextDueAt >= first.redisNow + PER - 2 && first.nextDueAt <= first.redisNow + PER + 2);
    assert.deepEqual((await client.queueLimits('default')).gates, [{ gate: 'r:a', running: 0, waiting: 2 }]);
    assert.equal((await h.store.counts('default')).queued, 2, "the machine's rate line is queued");
    const queued = await h.store.list({ queue: 'default', status: 'queued' });
    assert.deepEqual(queued.jobs.map((j) => j.id).sort(), [a[1], a[2]].sort());
    // Before then nothing of a starts.
    assert.equal((await h.store.commit('default', [], claim)).claimed.length, 0);
    await new Promise((res) => setTimeout(res, first.nextDueAt! - first.redisNow + 20));
    const second = await h.store.commit('default', [], claim);
    assert.deepEqual(
      second.claimed.map((c) => c.id),
      [a[1]],
    );
    // The waiting job used no attempt; a's last job is due at the rate after it.
    assert.equal(second.claimed[0]!.attempt, 1);
    assert.ok(second.nextDueAt !== null && second.nextDueAt >= second.redisNow + PER - 2);
  });

  it("a job cancelled while in its machine's rate line leaves it", async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', { machines: { a: { rateLimit: { limit: 1, perMs: 60_000 } } } });
    const a = [await client.enqueue('a', 1), await client.enqueue('a', 2)];
    await h.store.commit('default', [], claim);
    await client.cancel(a[1]!);
    assert.equal((await client.get(a[1]!))?.status, 'cancelled');
    assert.equal((await h.store.counts('default')).queued, 0);
  });

  it("mode 'skip' cancels a job over its machine's rate unrun, saying why; other machines run", async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', {
      machines: { a: { rateLimit: { limit: 1, perMs: 60_000, mode: 'skip' } } },
    });
    const a = [await client.enqueue('a', 1), await client.enqueue('a', 2)];
    const b = await client.enqueue('b', 1);
    const r = await h.store.commit('default', [], claim);
    assert.deepEqual(
      r.claimed.map((c) => c.id),
      [a[0], b],
    );
    assert.equal((await client.get(a[1]!))?.status, 'cancelled');
    const e = (await client.events(a[1]!)).find((x) => x.type === 'cancelled') as
      { reason?: string } | undefined;
    assert.match(e?.reason ?? '', /machine a is over its rate limit \(mode skip\)/);
    assert.equal((await h.store.counts('default')).queued, 0);
  });

  it('set at run time over a gate, kept beside it, and cleared: the line goes back', async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', { machines: { a: { concurrency: 5 } } });
    await client.setQueueLimits('default', { machines: { a: { rateLimit: { limit: 1, perMs: 60_000 } } } });
    const v = await client.queueLimits('default');
    assert.deepEqual(v.limits.gates, { 'm:a': 5 }, "a throttle alone keeps the machine's gate");
    assert.deepEqual(v.limits.machineRateLimits, { a: { limit: 1, perMs: 60_000, burst: 0 } });
    const a = [await client.enqueue('a', 1), await client.enqueue('a', 2), await client.enqueue('a', 3)];
    const first = await h.store.commit('default', [], claim);
    assert.deepEqual(
      first.claimed.map((c) => c.id),
      [a[0]],
    );
    await client.setQueueLimits('default', { machines: { a: { rateLimit: null } } });
    const after = await client.queueLimits('default');
    assert.equal(after.limits.machineRateLimits, undefined);
    assert.deepEqual(after.limits.gates, { 'm:a': 5 });
    assert.deepEqual(
      (await h.store.commit('default', [], claim)).claimed.map((c) => c.id),
      [a[1], a[2]],
      'a cleared throttle puts the line back',
    );
    // null takes all of the machine's limits away.
    await client.setQueueLimits('default', { machines: { a: null } });
    const none = (await client.queueLimits('default')).limits;
    assert.deepEqual(none, {});
  });

  it('a definition declares it; one set at run time wins across a restart', async () => {
    h = world();
    const rated = [
      defineJob({ name: 'a', machineRateLimit: { limit: 2, perMs: 1000, burst: 1 }, work: () => 1 }),
      defineJob({ name: 'b', work: () => 1 }),
    ];
    const client = h.client({ jobs: rated });
    const first = await h.started({ jobs: rated, concurrency: 1 });
    assert.deepEqual((await client.queueLimits('default')).limits.machineRateLimits, {
      a: { limit: 2, perMs: 1000, burst: 1 },
    });
    await client.setQueueLimits('default', { machines: { a: { rateLimit: { limit: 9, perMs: 1000 } } } });
    await first.stop();
    await h.started({ jobs: rated, concurrency: 1 });
    assert.deepEqual((await client.queueLimits('default')).limits.machineRateLimits, {
      a: { limit: 9, perMs: 1000, burst: 0 },
    });
  });

  it('refuses a bad machine throttle', async () => {
    assert.throws(
      () => defineJob({ name: 'x', machineRateLimit: { limit: 0, perMs: 1000 }, work: () => 1 }),
      (e: unknown) =>
        e instanceof MachinistError &&
        e.code === 'INVALID_DEFINITION' &&
        e.message.includes('machineRateLimit'),
    );
    h = world();
    const client = h.client({ jobs });
    await assert.rejects(
      async () =>
        client.setQueueLimits('default', { machines: { a: { rateLimit: { limit: 1, perMs: 0 } } } }),
      (e: unknown) => e instanceof MachinistError && e.message.includes('machines.a.rateLimit'),
    );
  });

  it('with real supervisors: each machine starts at its rate, machines side by side, woken when due', async () => {
    h = world();
    const T = 100;
    const N = 6;
    const starts = new Map<string, number[]>();
    const mark = (m: string) => () => {
      starts.set(m, [...(starts.get(m) ?? []), Date.now()]);
      return 1;
    };
    const defs = ['ma', 'mb'].map((name) =>
      defineJob({ name, machineRateLimit: { limit: 1, perMs: T }, work: mark(name) }),
    );
    const client = h.client({ jobs: defs });
    await client.enqueueMany(
      Array.from({ length: 2 * N }, (_, i) => ({ machine: i % 2 ? 'mb' : 'ma', input: i })),
    );
    const t0 = Date.now();
    await h.started({ jobs: defs, concurrency: 8 });
    await h.started({ jobs: defs, concurrency: 8 });
    await eventually(() => [...starts.values()].reduce((n, s) => n + s.length, 0) === 2 * N, 20_000);
    const elapsed = Date.now() - t0;
    for (const [m, s] of starts) {
      // N starts at one per T: the first and the last at least (N - 1) T apart (less a little: a
      // start is seen when the work begins, after its claim).
      const span = s[s.length - 1]! - s[0]!;
      assert.ok(span >= (N - 1) * T - 40, `machine ${m}: ${N} starts in ${span} ms`);
    }
    // Side by side and woken at each machine's next allowed start, not one after the other (2x)
    // or at a poll (idleWaitMs, 5 s by default).
    assert.ok(elapsed < (N - 1) * T + 900, `all took ${elapsed} ms`);
  });
});
