// Redis only: a Redis that loses its keys (FLUSHALL, a restart without AOF).
// The machine registry and the queue set are global keys that only supervisors write. When Redis
// loses them (FLUSHALL, a restart without AOF, a failover), running supervisors write them again:
// on the reconnect and on a periodic refresh. And a supervisor warns at start when Redis keeps no
// append-only file, the setting whose absence makes such a loss possible.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Supervisor, defineJob, type Client } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';

const noop = defineJob({ name: 'noop', work: async () => 'ok' });

/** Enqueues and waits: a client without definitions (`jobs`) finds the machine in the registry. */
async function runs(client: Client): Promise<boolean> {
  const id = await client.enqueue('noop', {});
  const job = await client.waitForResult(id, { timeoutMs: 5000 });
  return job.status === 'done';
}

/** A pino logger whose records land in `lines`, parsed. */
function capturedLogger(lines: { level: number; msg: string }[]) {
  return pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
}

describe('registry repair after Redis loses data', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  // Flushing or restarting a server of your own (REDIS_URL) would take other data with it.
  const skip = process.env.REDIS_URL ? 'needs a private redis-server' : false;

  it(
    'registers machines and the queue again within the refresh period after a FLUSHALL',
    { skip },
    async () => {
      h = new Harness(redis);
      await h.started({ jobs: [noop], registryRefreshMs: 100 });
      assert.equal(await runs(h.client()), true);

      await h.raw.flushall();
      // The supervisor is still running; within its refresh period the registry is back. (A new
      // client each time: a client caches the registry for a moment.)
      await eventually(() => runs(h.client()).catch(() => false), 5000, 50);
      assert.deepEqual(await h.store.queues(), ['default']);
    },
  );

  it(
    'registers machines and the queue again when the store reconnects to a restarted Redis',
    { skip },
    async () => {
      h = new Harness(redis);
      // A refresh period far beyond the test: only the reconnect can bring the registry back.
      await h.started({ jobs: [noop], registryRefreshMs: 600_000 });
      assert.equal(await runs(h.client()), true);

      await redis.restart(); // empty: the private server keeps no AOF and no RDB
      await eventually(
        async () => (await h.raw.exists(`${h.prefix}:machines`, `${h.prefix}:queues`)) === 2,
        10_000,
        50,
      );
      assert.deepEqual(await h.store.queues(), ['default']);
      assert.deepEqual(
        (await h.store.machines()).map((m) => m.name),
        ['noop'],
      );
      await eventually(() => runs(h.client()).catch(() => false), 10_000, 50);
    },
  );

  it('stops refreshing the registry when the supervisor stops', { skip }, async () => {
    h = new Harness(redis);
    const sup = await h.started({ jobs: [noop], registryRefreshMs: 50 });
    await sup.stop();
    await h.raw.flushall();
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(await h.keys(), []);
  });

  it("keeps the newest version's fields when an older deployment registers after a newer one", async () => {
    h = new Harness(redis);
    const v1 = defineJob({ name: 'noop', version: 1, retry: { maxAttempts: 2 }, work: async () => 1 });
    const v2 = defineJob({ name: 'noop', version: 2, retry: { maxAttempts: 7 }, work: async () => 2 });
    await h.started({ jobs: [v2] });
    await h.started({ jobs: [v1] }); // as its periodic refresh would, after the newer one
    assert.deepEqual(await h.store.machines(), [
      { name: 'noop', versions: [1, 2], hasLoad: false, maxAttempts: 7 },
    ]);
  });

  it('warns at start when Redis keeps no append-only file', async () => {
    h = new Harness(redis);
    const lines: { level: number; msg: string }[] = [];
    const appendonly = (await h.raw.config('GET', 'appendonly'))[1];
    await h.started({ jobs: [noop], logger: capturedLogger(lines) });
    const warned = lines.filter((l) => l.level === 40 && /appendonly/.test(l.msg));
    if (appendonly === 'no') {
      assert.equal(warned.length, 1, JSON.stringify(lines));
      assert.match(warned[0]!.msg, /appendonly is 'no'/);
    } else assert.equal(warned.length, 0, JSON.stringify(lines));
  });
});

describe('a Redis whose CONFIG command is disabled', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis(['--rename-command', 'CONFIG', ''])));
  after(async () => redis.stop());

  const skip = process.env.REDIS_URL ? 'needs a private redis-server' : false;

  it('starts a supervisor that says it cannot read appendonly nor maxmemory-policy', { skip }, async () => {
    const h = new Harness(redis);
    try {
      const lines: { level: number; msg: string }[] = [];
      const sup: Supervisor = await h.started({ jobs: [noop], logger: capturedLogger(lines) });
      const warnings = lines.filter((l) => l.level === 40).map((l) => l.msg);
      assert.ok(
        warnings.some((m) => /cannot read Redis appendonly/.test(m)),
        warnings.join('\n'),
      );
      assert.ok(
        warnings.some((m) => /cannot read Redis maxmemory-policy/.test(m)),
        warnings.join('\n'),
      );
      await sup.stop();
    } finally {
      await h.close();
    }
  });
});
