// Redis only: leases on Redis TIME, read from the active zset, a lost lease forged in the job hash
// (lease requeues on both stores: test/store/conformance/retryCases.ts).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually, sleep, startRedis, type TestRedis } from '../support/redis.js';
import { Harness, gate, untilAborted } from '../support/harness.js';

const claimReq = (workerId: string, max: number, leaseMs: number) => ({
  workerId,
  max,
  leaseMs,
  loadMachines: [],
});

describe('leases', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('claims up to N jobs in one call, each with a fresh token and a lease on Redis time', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [defineJob({ name: 'n', work: () => 1 })] });
    const ids = await client.enqueueMany(Array.from({ length: 7 }, (_, i) => ({ machine: 'n', input: i })));
    const [sec, usec] = await h.raw.time();
    const redisNow = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
    const res = await h.store.commit('default', [], claimReq('w1', 5, 1000));
    assert.equal(res.claimed.length, 5);
    assert.deepEqual(
      res.claimed.map((c) => c.id),
      ids.slice(0, 5),
    );
    assert.equal(new Set(res.claimed.map((c) => c.token)).size, 5, 'tokens are distinct');
    for (const c of res.claimed) {
      const deadline = Number(await h.raw.zscore(h.key('active'), c.id));
      assert.ok(
        deadline >= redisNow + 1000 && deadline < redisNow + 3000,
        `lease deadline ${deadline - redisNow} ms ahead`,
      );
      assert.equal((await client.get(c.id))?.status, 'working');
    }
    const rest = await h.store.commit('default', [], claimReq('w2', 5, 1000));
    assert.deepEqual(
      rest.claimed.map((c) => c.id),
      ids.slice(5),
    );
    assert.ok(res.claimed.every((c) => !rest.claimed.some((r) => r.token === c.token)));
  });

  it('wakes an idle supervisor within milliseconds of new work', async () => {
    h = new Harness(redis);
    let ranAt = 0;
    const job = defineJob({ name: 'quick', work: () => void (ranAt = Date.now()) });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job], idleWaitMs: 5000 });
    await sleep(300); // let it settle into its idle wait
    const t0 = Date.now();
    const id = await client.enqueue('quick', null);
    await client.waitForResult(id, { timeoutMs: 5000 });
    assert.ok(ranAt - t0 < 1500, `picked up ${ranAt - t0} ms after enqueue (idle wait is 5000 ms)`);
  });

  it('wakes within milliseconds of new work that arrives while the pump is busy writing', async () => {
    h = new Harness(redis);
    const release = gate();
    let quickRanAt = 0;
    const busy = defineJob({
      name: 'busy',
      work: async ({ progress }) => {
        progress('half way'); // one write, then nothing that would wake the pump for 3 s
        await Promise.race([release.promise, sleep(3000)]);
      },
    });
    const quick = defineJob({ name: 'quick', work: () => void (quickRanAt = Date.now()) });
    const client = h.client({ jobs: [busy, quick] });
    // New work arrives exactly while the pump waits for the reply to that progress write: the
    // moment a wake-up signal goes to a blocking wait that nobody is joined to any more.
    let enqueuedAt = 0;
    const commit = h.store.commit.bind(h.store);
    h.store.commit = async (queue, ops, claim) => {
      const res = await commit(queue, ops, claim);
      if (enqueuedAt === 0 && ops.some((op) => op.kind === 'checkpoint')) {
        enqueuedAt = Date.now();
        await client.enqueue('quick', null);
        await sleep(20);
      }
      return res;
    };
    await h.started({ jobs: [busy, quick], idleWaitMs: 5000 });
    await client.enqueue('busy', null);
    await eventually(() => quickRanAt > 0, 8000);
    release.open();
    const latency = quickRanAt - enqueuedAt;
    assert.ok(latency < 1500, `picked up ${latency} ms after enqueue (idle wait is 5000 ms)`);
  });

  it('extends leases by heartbeat: a job running 3x its lease is never reclaimed', async () => {
    h = new Harness(redis);
    const runs: number[] = [];
    const job = defineJob({
      name: 'long',
      work: async ({ attempt }) => {
        runs.push(attempt);
        await sleep(3000);
        return 'ok';
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    await h.started({ jobs: [job] }); // a second worker that would happily take a reaped job
    const id = await client.enqueue('long', null);
    await eventually(async () => (await client.get(id))?.status === 'working');
    const first = Number(await h.raw.zscore(h.key('active'), id));
    await sleep(1200);
    const later = Number(await h.raw.zscore(h.key('active'), id));
    assert.ok(later > first, 'the lease deadline moved forward');
    const rec = await client.waitForResult(id, { timeoutMs: 6000 });
    assert.equal(rec.status, 'done');
    assert.equal(runs.length, 1);
    assert.equal(rec.leaseRequeues, 0);
    assert.equal((await client.events(id)).filter((e) => e.type === 'claimed').length, 1);
  });

  it('requeues a job whose lease passed and another supervisor completes it', async () => {
    h = new Harness(redis);
    const job = defineJob({ name: 'j', work: ({ attempt }) => ({ attempt }) });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('j', null);
    const { claimed } = await h.store.commit('default', [], claimReq('ghost', 1, 300));
    assert.equal(claimed[0]?.id, id);
    await h.started({ jobs: [job] });
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'done');
    assert.equal(rec.leaseRequeues, 1);
    assert.equal(rec.attempts, 1, 'a lease requeue does not use an attempt');
    assert.deepEqual(rec.output, { attempt: 1 });
    assert.ok((await client.events(id)).some((e) => e.type === 'lease-requeued'));
  });

  it('reaps at once when it starts: a dead worker’s expired lease is requeued without waiting out a reaper interval', async () => {
    // A worker that starts is often the one replacing a crashed one (chaos T1: when workers die
    // faster than they reach their first reaper tick, nobody reaps). The interval here is a
    // minute: only a reap at start can requeue the job within the bound.
    h = new Harness(redis);
    const job = defineJob({ name: 'j', work: () => 'ok' });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('j', null);
    await h.claimAs('dead', { leaseMs: 50 });
    await sleep(100);
    await h.started({ jobs: [job], reaperIntervalMs: 60_000 });
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'done');
    assert.equal(rec.leaseRequeues, 1);
  });

  it('fails a job with LEASE_EXPIRED after maxLeaseRequeues lease requeues, and its waiter learns at once', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [defineJob({ name: 'j', work: () => 1 })] });
    const id = await client.enqueue('j', null);
    const waiting = client.waitForResult(id, { queue: 'default', timeoutMs: 10_000 });
    const maxLeaseRequeues = 2;
    for (let i = 1; i <= maxLeaseRequeues + 1; i++) {
      const { claimed } = (await eventually(async () => {
        const r = await h.store.commit('default', [], claimReq(`ghost${i}`, 1, 50));
        return r.claimed.length ? r : null;
      }))!;
      assert.equal(claimed[0]?.id, id);
      await eventually(async () => {
        await h.store.reap('default', { maxLeaseRequeues });
        return (await client.get(id))?.status !== 'working';
      });
    }
    const rec = await client.get(id);
    assert.equal(rec?.status, 'failed');
    assert.equal(rec?.error?.code, 'LEASE_EXPIRED');
    assert.equal(rec?.leaseRequeues, 3);
    // The reaper pushed the record to the waiter (the waiter's own re-check comes only after 5 s).
    const failedAt = Date.now();
    const seen = await waiting;
    assert.ok(
      Date.now() - failedAt < 1500,
      `the waiter settled ${Date.now() - failedAt} ms after the failure`,
    );
    assert.equal(seen.error?.code, 'LEASE_EXPIRED');
    assert.deepEqual(
      (await client.deadLetters()).map((d) => d.id),
      [id],
    );
    assert.equal(await h.raw.zscore(h.key('active'), id), null);
  });

  it("honours the supervisor's maxLeaseRequeues in its reaper", async () => {
    h = new Harness(redis);
    const job = defineJob({ name: 'j', work: () => 1 });
    const client = h.client({ jobs: [job] });
    // A ghost worker holds the job; with a budget of 0 the first expiry fails it.
    const id = await client.enqueue('j', null);
    await h.store.commit('default', [], claimReq('ghost', 1, 100));
    await h.started({ jobs: [job], maxLeaseRequeues: 0 });
    await eventually(async () => (await client.get(id))?.status === 'failed');
    assert.equal((await client.get(id))?.error?.code, 'LEASE_EXPIRED');
  });

  it('refuses a write from a worker whose lease has passed', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [defineJob({ name: 'j', work: () => 1 })] });
    const id = await client.enqueue('j', null);
    const first = (await h.store.commit('default', [], claimReq('old', 1, 50))).claimed[0]!;
    await eventually(async () =>
      (await h.store.reap('default', { maxLeaseRequeues: 5 })).requeued.includes(id),
    );
    const second = (await h.store.commit('default', [], claimReq('new', 1, 5000))).claimed[0]!;
    assert.equal(second.id, id);
    assert.notEqual(second.token, first.token);

    const stale = await h.store.commit('default', [
      { kind: 'done', id, token: first.token, output: '"stale"', snapshot: '{}', log: ['{"type":"done"}'] },
      { kind: 'fail', id, token: first.token, error: '{"name":"E","message":"stale"}', log: [] },
      { kind: 'checkpoint', id, token: first.token, status: 'working', progress: '99', log: [] },
    ]);
    assert.deepEqual(stale.written, [false, false, false]);
    let rec = await client.get(id);
    assert.equal(rec?.status, 'working');
    assert.equal(rec?.output, null);
    assert.equal(rec?.progress, null);
    assert.deepEqual(await h.store.heartbeat('default', [{ id, token: first.token }], 1000), ['lost']);

    const fresh = await h.store.commit('default', [
      { kind: 'done', id, token: second.token, output: '"fresh"', snapshot: '{}', log: ['{"type":"done"}'] },
    ]);
    assert.deepEqual(fresh.written, [true]);
    rec = await client.get(id);
    assert.equal(rec?.status, 'done');
    assert.equal(rec?.output, 'fresh');
    // Once finished, even the last holder's token writes nothing more.
    const again = await h.store.commit('default', [
      { kind: 'fail', id, token: second.token, error: '{}', log: [] },
    ]);
    assert.deepEqual(again.written, [false]);
  });

  it('stops a running job whose lease was lost and writes it no more', async () => {
    h = new Harness(redis);
    const started = gate();
    let reason: string | undefined;
    const job = defineJob({
      name: 'j',
      work: async ({ signal, progress }) => {
        started.open();
        signal.addEventListener('abort', () => {
          reason = (signal.reason as { reason?: string }).reason;
          progress('after-loss'); // must not reach Redis
        });
        return untilAborted(signal);
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('j', null);
    await started.promise;
    // Someone else now holds the job (as after a reap and a reclaim elsewhere).
    await h.raw.hset(h.key(`job:${id}`), 'tk', 'other:1');
    await eventually(() => reason === 'lease-lost', 3000);
    await sleep(500);
    const rec = await client.get(id);
    assert.equal(rec?.status, 'working');
    assert.equal(rec?.progress, null);
    assert.equal((await client.events(id)).at(-1)?.type, 'claimed');
  });

  it('aborts the old run (lease-lost) when a worker that stalled past its lease claims the job again, and ends the job once', async () => {
    h = new Harness(redis);
    const runs: { reason?: string; completed?: boolean }[] = [];
    const job = defineJob({
      name: 'stall',
      work: async ({ signal, progress }) => {
        const run: { reason?: string; completed?: boolean } = {};
        runs.push(run);
        signal.addEventListener('abort', () => (run.reason = (signal.reason as { reason?: string }).reason));
        if (runs.length > 1) return 'second';
        // The event loop stalls past the 1 s lease: the reaper requeues the job and the pump of
        // this same supervisor claims it again.
        const end = performance.now() + 1600;
        while (performance.now() < end) {
          // busy: nothing else runs
        }
        await Promise.race([sleep(3000), untilAborted(signal)]).catch(() => undefined);
        progress('from the old run'); // must not reach Redis
        run.completed = !signal.aborted;
        return 'first';
      },
    });
    // From the stall on, heartbeats fail (a Redis error): the heartbeat's 'lost' cannot be what
    // stops the old run, only the claim that replaces it.
    const heartbeat = h.store.heartbeat.bind(h.store);
    h.store.heartbeat = async (queue, leases, leaseMs) => {
      if (runs.length === 1) throw new Error('injected heartbeat failure');
      return heartbeat(queue, leases, leaseMs);
    };
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job], concurrency: 2 });
    const id = await client.enqueue('stall', null);
    const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
    await eventually(() => runs[0]?.completed !== undefined, 5000);

    assert.equal(runs.length, 2, 'reclaimed once');
    assert.equal(runs[0]!.reason, 'lease-lost', 'the old run saw its signal fire');
    assert.equal(runs[0]!.completed, false, 'the old run stopped');
    assert.equal(rec.status, 'done');
    assert.equal(rec.output, 'second');
    assert.equal(rec.leaseRequeues, 1);
    await sleep(300); // anything the old run still had to write would have landed by now
    const after = await client.get(id);
    assert.equal(after?.progress, null, 'no write from the old run landed');
    const log = await client.events(id);
    assert.equal(log.filter((e) => e.type === 'done').length, 1);
  });
});
