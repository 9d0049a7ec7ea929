// Durability 'replicated' (src/store/redis/durability.ts) on a master with one replica: a job
// creation is answered only once the replica has it; when the replica does not acknowledge in
// time an enqueue is refused REPLICATION_TIMEOUT naming its jobs (which exist on the master),
// a worker's commit is kept and counted; a supervisor refuses to start without a replica.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { Client, MachinistMetrics, RedisStore, Supervisor, defineJob } from '../../src/index.js';
import { spawnRedisServer, type RedisServer } from '../../examples/privateRedis.js';
import { eventually, sleep, uniquePrefix } from '../support/redis.js';

const noop = defineJob({ name: 'noop', work: async () => 'ok' });

/** The replica, following `master` again (after a test detached it), once the master counts it online. */
async function follow(replica: Redis, master: RedisServer): Promise<void> {
  await replica.replicaof('127.0.0.1', master.port);
  const m = new Redis(master.url);
  try {
    // The master's view, not the replica's: WAIT counts only replicas the master has online.
    await eventually(async () => /slave0:.*state=online/.test(await m.info('replication')), 10_000);
  } finally {
    m.disconnect();
  }
}

/** Detaches the replica, once the master has seen it go. */
async function detach(replica: Redis, master: RedisServer): Promise<void> {
  await replica.replicaof('NO', 'ONE');
  const m = new Redis(master.url);
  try {
    await eventually(async () => /connected_slaves:0/.test(await m.info('replication')), 10_000);
  } finally {
    m.disconnect();
  }
}

describe("durability 'replicated' (a master and one replica)", () => {
  let master: RedisServer;
  let replicaServer: RedisServer;
  let replica: Redis;
  before(async () => {
    // No diskless-sync delay: a replica following again is in sync at once, not after 5 s.
    master = await spawnRedisServer({ extraArgs: ['--repl-diskless-sync-delay', '0'] });
    replicaServer = await spawnRedisServer();
    replica = new Redis(replicaServer.url);
    await follow(replica, master);
  });
  after(async () => {
    replica.disconnect();
    await replicaServer.stop('SIGKILL');
    await master.stop('SIGKILL');
  });

  it('resolves an enqueue only once the replica holds the job', async () => {
    const prefix = uniquePrefix('dur');
    const store = new RedisStore({ url: master.url, prefix, durability: { replicas: 1, timeoutMs: 3_000 } });
    const client = new Client({ store, jobs: [noop] });
    const probe = new Redis(master.url);
    try {
      await client.enqueue('noop', {}); // connected, scripts loaded
      // The replica stopped: the master takes the job, and the enqueue must not resolve yet.
      replicaServer.process.kill('SIGSTOP');
      let settled = false;
      const enqueued = client.enqueue('noop', {}).finally(() => (settled = true));
      // In line: the normal band's jobs are in the ready list (format 3), beside `queued`.
      const inLine = async () =>
        (await probe.zcard(`${prefix}:{default}:queued`)) + (await probe.llen(`${prefix}:{default}:ready`));
      await eventually(async () => (await inLine()) === 2);
      await sleep(100);
      assert.equal(settled, false, 'the enqueue resolved before the replica had the job');
      replicaServer.process.kill('SIGCONT');
      const id = await enqueued;
      assert.equal(await replica.exists(`${prefix}:{default}:job:${id}`), 1);
      assert.deepEqual(store.replicaShortfalls(), { enqueue: 0, commit: 0, drainIngress: 0 });
    } finally {
      replicaServer.process.kill('SIGCONT');
      probe.disconnect();
      client.close();
      await store.close();
    }
  });

  it('refuses an enqueue the replica did not acknowledge in time with REPLICATION_TIMEOUT naming its jobs, which exist', async () => {
    const prefix = uniquePrefix('dur');
    const store = new RedisStore({
      url: master.url,
      prefix,
      durability: { replicas: 1, timeoutMs: 50 },
    });
    const client = new Client({ store, jobs: [noop] });
    await detach(replica, master);
    try {
      let ids: readonly string[] = [];
      await assert.rejects(
        client.enqueueMany([
          { machine: 'noop', input: {} },
          { machine: 'noop', input: {} },
        ]),
        (err: Error & { code?: string; jobIds?: readonly string[]; acked?: number }) => {
          assert.equal(err.code, 'REPLICATION_TIMEOUT');
          assert.equal(err.acked, 0);
          ids = err.jobIds ?? [];
          assert.equal(ids.length, 2);
          assert.match(err.message, new RegExp(ids[0]!));
          return true;
        },
      );
      for (const id of ids) assert.ok(await store.getJob(id), `job ${id} should exist on the master`);
      assert.equal(store.replicaShortfalls().enqueue, 1);
      const metrics = new MachinistMetrics({ store });
      assert.match(await metrics.text(), /machinist_replica_shortfalls_total\{op="enqueue"\} 1/);
    } finally {
      await follow(replica, master);
      client.close();
      await store.close();
    }
  });

  it("keeps a worker's commit the replica did not acknowledge, and counts it", async () => {
    const prefix = uniquePrefix('dur');
    // The replica acknowledges the first enqueue: a bound of 1 s, not 50 ms, so that a loaded host's
    // slow acknowledgement does not fail it (the late enqueue waits out the whole bound).
    const store = new RedisStore({ url: master.url, prefix, durability: { replicas: 1, timeoutMs: 1_000 } });
    const client = new Client({ store, jobs: [noop] });
    const sup = new Supervisor({ store, jobs: [noop], concurrency: 2 });
    await sup.start();
    try {
      const id = await client.enqueue('noop', {});
      assert.equal((await client.waitForResult(id)).status, 'done');
      await detach(replica, master);
      const late = await store
        .enqueue('default', [
          {
            id: 'late-1',
            machine: 'noop',
            version: 1,
            input: '{}',
            band: 0,
            delayMs: 0,
            maxAttempts: 1,
          },
        ])
        .catch((err: { code?: string }) => err.code);
      assert.equal(late, 'REPLICATION_TIMEOUT');
      const job = await client.waitForResult('late-1');
      assert.equal(job.status, 'done');
      // The done is on the master (and seen by waitForResult) as soon as its script ran; its
      // WAIT, in the same pipeline, answers up to timeoutMs later, and only then is it counted.
      await eventually(async () => store.replicaShortfalls().commit >= 1, 5_000).catch(() => undefined);
      assert.ok(store.replicaShortfalls().commit >= 1, 'the unreplicated commit is counted');
    } finally {
      await sup.stop();
      await follow(replica, master);
      client.close();
      await store.close();
    }
  });

  it('refuses to start a supervisor when the master has fewer replicas than it waits for', async () => {
    const store = new RedisStore({
      url: master.url,
      prefix: uniquePrefix('dur'),
      durability: { replicas: 2, timeoutMs: 50 },
    });
    const sup = new Supervisor({ store, jobs: [noop] });
    await assert.rejects(sup.start(), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'NO_REPLICA');
      assert.match(err.message, /waits for 2 replica\(s\), but the Redis master has 1 connected/);
      return true;
    });
    await store.close();
  });
});

describe('RedisStore durability option', () => {
  it('refuses a timeout a client call could not wait for, and a replica count below 1', () => {
    assert.throws(
      () => new RedisStore({ url: 'redis://127.0.0.1:1', durability: { timeoutMs: 5_000 } }),
      /durability\.timeoutMs must be an integer >= 1 and below commandTimeoutMs \(5000\)/,
    );
    assert.throws(
      () => new RedisStore({ url: 'redis://127.0.0.1:1', durability: { replicas: 0 } }),
      /durability\.replicas must be an integer >= 1/,
    );
    assert.throws(
      () => new RedisStore({ url: 'redis://127.0.0.1:1', durability: 'sync' as never }),
      /durability must be 'async', 'replicated' or \{ replicas, timeoutMs \}/,
    );
  });
});
