// `machinist migrate-store --to-cluster` (src/store/redis/copyStore.ts): a populated single-node
// deployment copied to a private 3-master Redis Cluster arrives key for key (values and TTLs),
// spread over the masters by queue; and each refusal (a target that holds the prefix, a job
// mid-run, an older format) writes nothing.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from 'ioredis';
import { defineJob } from '../../src/index.js';
import { copyStore } from '../../src/store/redis/copyStore.js';
import { startRedisCluster, type PrivateRedisCluster } from '../../examples/privateRedisCluster.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { runCli } from '../support/cli.js';

const echo = defineJob({ name: 'echo', work: async ({ input }: { input: { n: number } }) => input.n });
const boom = defineJob({
  name: 'boom',
  retry: { maxAttempts: 1 },
  work: async () => {
    throw new Error('boom');
  },
});

describe('copying a deployment to a Redis Cluster', () => {
  let redis: TestRedis;
  let cluster: PrivateRedisCluster;
  let target: Cluster;
  let h: Harness;
  before(async () => {
    [redis, cluster] = await Promise.all([startRedis(), startRedisCluster({ masters: 3 })]);
    target = new Cluster([...cluster.seeds]);
  });
  after(async () => {
    target.disconnect();
    await Promise.all([redis.stop(), cluster.stop()]);
  });
  afterEach(async () => h?.close());

  /** A deployment with finished, failed, queued and delayed jobs on three queues. */
  async function populated(): Promise<void> {
    h = new Harness(redis);
    const jobs = [echo, boom];
    const queues = ['alpha', 'beta', 'gamma'];
    for (const queue of queues) {
      const client = h.client({ jobs, queue });
      const done = await Promise.all([1, 2, 3].map((n) => client.enqueue('echo', { n })));
      const failed = await client.enqueue('boom', {});
      const supervisor = await h.started({ jobs, queue });
      for (const id of [...done, failed]) await client.waitForResult(id, { queue, timeoutMs: 10_000 });
      await supervisor.stop({ graceMs: 1000 });
      await client.enqueue('echo', { n: 4 });
      await client.enqueue('echo', { n: 5 }, { delayMs: 600_000 });
    }
  }

  /** Every key under the prefix on the cluster (SCAN on each master). */
  async function clusterKeys(): Promise<string[]> {
    const out: string[] = [];
    for (const node of target.nodes('master')) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${h.prefix}:*`, 'COUNT', 1000);
        cursor = next;
        out.push(...keys);
      } while (cursor !== '0');
    }
    return out.sort();
  }

  /** Every key under the prefix with its DUMP payload and whether it expires. */
  async function image(conn: Harness['raw'] | Cluster): Promise<string[]> {
    const keys = conn === target ? await clusterKeys() : (await h.keys()).sort();
    const out: string[] = [];
    for (const k of keys) {
      // Values, not DUMP payloads: a set's or a big hash's DUMP lists members in hash order,
      // which differs between servers.
      const type = await conn.type(k);
      const value = JSON.stringify(
        type === 'set'
          ? (await conn.smembers(k)).sort()
          : type === 'hash'
            ? Object.entries(await conn.hgetall(k)).sort()
            : type === 'zset'
              ? await conn.zrange(k, '0', '-1', 'WITHSCORES')
              : type === 'list'
                ? await conn.lrange(k, 0, -1)
                : type === 'stream'
                  ? await conn.xrange(k, '-', '+')
                  : await conn.get(k),
      );
      const ttl = await conn.pttl(k);
      out.push(`${k} ${type} ${value} ${ttl > 0 ? 'expires' : ttl}`);
    }
    return out;
  }

  it('copies every key with its value and TTL, each queue onto its own slot', async () => {
    await populated();
    // The reaper's lock (a few hundred ms of TTL) may expire between this look and the copy: the
    // copy leaves out what expired, so wait for it to go first.
    await eventually(async () => (await h.keys()).every((k) => !k.endsWith(':reaplock')));
    const source = await image(h.raw);
    const report = await copyStore(h.raw, target, h.prefix, { dryRun: false });
    assert.deepEqual(
      report.queues.map((q) => q.queue),
      ['alpha', 'beta', 'gamma'],
    );
    for (const q of report.queues) assert.equal(q.jobs, 6, `${q.queue}: 4 finished + 1 queued + 1 delayed`);
    const copied = await image(target);
    assert.deepEqual(
      copied.map((l) => l.split(' ')[0]),
      source.map((l) => l.split(' ')[0]),
    );
    for (let i = 0; i < source.length; i++) assert.equal(copied[i], source[i]);
    assert.equal(report.keys, source.length);
    // The keys landed on more than one master (three queues, three hash tags).
    const perMaster = await Promise.all(
      target.nodes('master').map(async (node) => (await node.keys(`${h.prefix}:*`)).length),
    );
    assert.ok(perMaster.filter((n) => n > 0).length >= 2, `keys per master: ${perMaster.join(', ')}`);
  });

  it('refuses a target that already holds the prefix, and writes nothing', async () => {
    await populated();
    await target.set(`${h.prefix}:format`, '1');
    await assert.rejects(copyStore(h.raw, target, h.prefix, { dryRun: false }), {
      code: 'STORE_COPY_TARGET_NOT_EMPTY',
    });
    assert.deepEqual(await clusterKeys(), [`${h.prefix}:format`]);
  });

  it('refuses a source with a job mid-run (naming its queue), and writes nothing', async () => {
    await populated();
    await h.claimAs('stuck', { queue: 'beta' });
    await assert.rejects(
      copyStore(h.raw, target, h.prefix, { dryRun: false }),
      (err: Error & { code: string }) => {
        assert.equal(err.code, 'STORE_COPY_BUSY');
        assert.match(err.message, /beta \(1 active\)/);
        return true;
      },
    );
    assert.deepEqual(await clusterKeys(), []);
  });

  it('refuses a source of an older format (migrate it first), and writes nothing', async () => {
    await populated();
    await h.raw.del(`${h.prefix}:format`);
    await assert.rejects(copyStore(h.raw, target, h.prefix, { dryRun: false }), {
      code: 'STORE_FORMAT_OLDER',
    });
    assert.deepEqual(await clusterKeys(), []);
  });

  it('the CLI migrates, copies and reports; a dry run writes nothing', async () => {
    await populated();
    const nodes = cluster.seeds.map((s) => `${s.host}:${s.port}`).join(',');
    const cli = (...args: string[]) =>
      runCli(['--redis', redis.url, '--prefix', h.prefix, 'migrate-store', '--to-cluster', nodes, ...args]);
    const dry = await cli('--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(
      dry.stdout,
      /would copy \d+ key\(s\) to the cluster at .* \(jobs per queue: alpha 6, beta 6, gamma 6\)/,
    );
    assert.deepEqual(await clusterKeys(), []);
    const run = await cli();
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /copied \d+ key\(s\)/);
    await eventually(async () => (await image(target)).length === (await image(h.raw)).length);
    const bad = await runCli(['--redis', redis.url, 'migrate-store', '--to-cluster', 'nohost']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /invalid cluster node 'nohost': expected host:port/);
  });
});
