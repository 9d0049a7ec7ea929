// The CLI on a Redis Cluster: `--redis-cluster host:port,...` (or REDIS_CLUSTER) instead of
// --redis, for `worker` and the job commands, against a private 3-master cluster; and the
// mistakes it refuses before connecting.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, uniquePrefix } from '../support/redis.js';
import { startCluster, type TestRedisCluster } from '../support/redisCluster.js';
import { runCli, spawnCli } from '../support/cli.js';
import { openStore, parseClusterNodes } from '../../src/cli/connect.js';

const JOBS = 'test/cli/fixtures/cliJobs.ts';

describe('machinist --redis-cluster', () => {
  let cluster: TestRedisCluster;
  let seeds: string;
  before(async () => {
    cluster = await startCluster();
    seeds = cluster.cluster.seeds.map((s) => `${s.host}:${s.port}`).join(',');
  });
  after(async () => cluster.stop());

  it('runs a worker and the job commands on the cluster, from the flag or REDIS_CLUSTER', async () => {
    const prefix = uniquePrefix('clc');
    const worker = spawnCli(['--redis-cluster', seeds, '--prefix', prefix, 'worker', '--jobs', JOBS]);
    worker.stdin!.end();
    let out = '';
    worker.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await eventually(() => out.includes('worker ready') || worker.exitCode !== null, 20_000);
      assert.match(out, /worker ready.*redis cluster 127\.0\.0\.1:\d+/);
      const enq = await runCli(['--prefix', prefix, 'enqueue', 'echo', '{"n":1}', '--wait', '15000'], {
        env: { REDIS_CLUSTER: seeds },
      });
      assert.equal(enq.code, 0, enq.stderr);
      const id = enq.stdout.trim().split(/\s+/)[0]!;
      const status = await runCli(['--redis-cluster', seeds, '--prefix', prefix, 'status', id, '--json']);
      assert.equal(status.code, 0, status.stderr);
      assert.equal((JSON.parse(status.stdout) as { status: string }).status, 'done');
    } finally {
      worker.kill('SIGKILL');
    }
  });

  it('refuses --redis with --redis-cluster before connecting', async () => {
    const both = await runCli(['--redis', 'redis://127.0.0.1:1', '--redis-cluster', seeds, 'ls']);
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /give --redis or --redis-cluster, not both/);
  });

  it('reads host:port,... and refuses a malformed list, naming the bad entry', () => {
    assert.deepEqual(parseClusterNodes('10.0.0.1:7000, [::1]:7001,'), [
      { host: '10.0.0.1', port: 7000 },
      { host: '::1', port: 7001 },
    ]);
    for (const [text, why] of [
      ['127.0.0.1', /takes host:port,\.\.\. \(got '127\.0\.0\.1'\)/],
      ['a:70000', /\(got 'a:70000'\)/],
      [' , ', /names no node/],
    ] as const)
      assert.throws(() => parseClusterNodes(text), { name: 'CliError', message: why });
  });

  it('says when no node of the cluster can be reached', async () => {
    const globals = {
      redis: 'redis://127.0.0.1:6379',
      redisCluster: parseClusterNodes('127.0.0.1:1,127.0.0.1:2'),
      prefix: 'x',
      redisChosen: true,
    };
    await assert.rejects(openStore(globals), {
      name: 'CliError',
      message:
        /cannot reach any node of the Redis Cluster: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
    });
  });
});
