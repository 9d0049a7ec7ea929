// The data format's version on a real redis-server (`<prefix>:format`, src/store/storeFormat.ts):
// a fresh store is stamped, a store of another version refuses a supervisor's start with a typed
// error, and `machinist migrate-store` (a real CLI process) brings a pre-versioned store up to
// date, after which its queued job runs.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { StoreFormatError, defineJob, definePipeline } from '../../src/index.js';
import { fullMachine, fullTimers } from '../../src/store/storedMachine.js';
import { readFileSync } from 'node:fs';
import { MIGRATIONS, STORE_FORMAT } from '../../src/store/storeFormat.js';
import { REDIS_STEPS } from '../../src/store/redis/formatOps.js';
import { FILE_STEPS } from '../../src/store/memory/snapshotFile.js';
import { Harness } from '../support/harness.js';
import { StoreWorld } from '../support/storeWorld.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { runCli } from '../support/cli.js';

const echo = defineJob({ name: 'echo', work: async ({ input }: { input: { n: number } }) => input.n });

/** Parks on a durable `after` timer until `at`, then ends with its context's `n`. */
const parkUntil = definePipeline({
  name: 'parkUntil',
  machine: setup({
    types: { input: {} as { at: number; n: number }, context: {} as { at: number; n: number } },
    delays: { due: ({ context }) => Math.max(0, context.at - Date.now()) },
  }).createMachine({
    initial: 'parked',
    context: ({ input }) => input,
    states: { parked: { after: { due: 'end' } }, end: { type: 'final' } },
    output: ({ context }) => context.n,
  }),
});

describe('the numbered migrations', () => {
  it('each version up to STORE_FORMAT has a migration, a Redis step, a data-file step and a documented row', () => {
    const doc = readFileSync(new URL('../../docs/data-format.md', import.meta.url), 'utf8');
    assert.deepEqual(
      MIGRATIONS.map((m) => m.to),
      Array.from({ length: STORE_FORMAT }, (_, i) => i + 1),
    );
    for (const m of MIGRATIONS) {
      assert.equal(typeof REDIS_STEPS[m.to], 'function', `Redis step ${m.to}`);
      assert.equal(typeof FILE_STEPS[m.to], 'function', `data-file step ${m.to}`);
      const row = new RegExp(`^\\| ${m.to} +\\|.*\\| ${m.breaking ? 'yes' : 'no'} +\\|$`, 'm');
      assert.match(doc, row, `docs/data-format.md lists migration ${m.to} (breaking: ${m.breaking})`);
    }
  });
});

describe('the data format version on Redis', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h?.close());

  const formatKey = () => `${h.prefix}:format`;

  /** Everything under the prefix: each key with its type and value, to prove nothing changed. */
  async function dump(): Promise<string> {
    const keys = (await h.keys()).sort();
    const out: string[] = [];
    for (const k of keys) {
      const type = await h.raw.type(k);
      const v =
        type === 'hash'
          ? await h.raw.hgetall(k)
          : type === 'zset'
            ? await h.raw.zrange(k, '0', '-1', 'WITHSCORES')
            : type === 'set'
              ? (await h.raw.smembers(k)).sort()
              : type === 'string'
                ? await h.raw.get(k)
                : type === 'stream'
                  ? await h.raw.xlen(k)
                  : await h.raw.llen(k);
      out.push(`${k} ${type} ${JSON.stringify(v)}`);
    }
    return out.join('\n');
  }

  /** A deployment from before versions were kept: a queued job, no `<prefix>:format`. */
  async function preVersioned(): Promise<string> {
    const id = await h.client({ jobs: [echo] }).enqueue('echo', { n: 7 });
    await h.raw.del(formatKey());
    return id;
  }

  const migrate = (...args: string[]) =>
    runCli(['--redis', redis.url, '--prefix', h.prefix, 'migrate-store', ...args]);

  it("a fresh store is stamped with the code's version at a supervisor's start", async () => {
    h = new Harness(redis);
    assert.equal(await h.raw.get(formatKey()), null);
    await h.started({ jobs: [echo] });
    assert.equal(await h.raw.get(formatKey()), String(STORE_FORMAT));
  });

  it("a fresh store is stamped by a client's first enqueue", async () => {
    h = new Harness(redis);
    await h.client({ jobs: [echo] }).enqueue('echo', { n: 1 });
    assert.equal(await h.raw.get(formatKey()), String(STORE_FORMAT));
  });

  it('after Redis loses its data (FLUSHALL), a running supervisor stamps the store again', async () => {
    h = new Harness(redis);
    await h.started({ jobs: [echo], registryRefreshMs: 50 });
    await h.raw.flushall();
    // The registry refresh brings machines and queue back; the stamp must come with them, or the
    // next process to start would take the store for a pre-versioned one.
    await eventually(async () => (await h.raw.exists(`${h.prefix}:machines`)) === 1, 5000);
    await eventually(async () => (await h.raw.get(formatKey())) === String(STORE_FORMAT), 5000);
    const later = await new StoreWorld(h.newStore()).started({ jobs: [echo] });
    await later.stop({ graceMs: 0 });
  });

  it('after a restart of Redis without its data, the store is stamped again and enqueues go on', async () => {
    h = new Harness(redis);
    await h.started({ jobs: [echo], registryRefreshMs: 600_000 });
    await redis.restart(); // empty: the private server keeps no AOF and no RDB
    await eventually(async () => (await h.raw.exists(`${h.prefix}:machines`)) === 1, 10_000, 50);
    const id = await eventually(
      () =>
        h
          .client({ jobs: [echo] })
          .enqueue('echo', { n: 9 })
          .catch(() => false),
      10_000,
      50,
    );
    assert.ok(id);
    assert.equal(await h.raw.get(formatKey()), String(STORE_FORMAT));
  });

  it('the check is not on the per-job path: jobs enqueued and run after the first make no GET', async () => {
    h = new Harness(redis);
    const gets = async () =>
      Number(/cmdstat_get:calls=(\d+)/.exec(await h.raw.info('commandstats'))?.[1] ?? 0);
    const client = h.client({ jobs: [echo] });
    await client.enqueue('echo', { n: 0 });
    await h.started({ jobs: [echo] });
    const before = await gets();
    const ids = await Promise.all(Array.from({ length: 50 }, (_, n) => client.enqueue('echo', { n })));
    for (const id of ids) await client.waitForResult(id, { queue: 'default', timeoutMs: 10_000 });
    assert.equal(await gets(), before);
  });

  it('a store of a newer format refuses a supervisor start with STORE_FORMAT_NEWER naming both versions', async () => {
    h = new Harness(redis);
    await h.raw.set(formatKey(), STORE_FORMAT + 1);
    await assert.rejects(h.started({ jobs: [echo] }), (err: StoreFormatError) => {
      assert.ok(err instanceof StoreFormatError);
      assert.equal(err.code, 'STORE_FORMAT_NEWER');
      assert.equal(err.stored, STORE_FORMAT + 1);
      assert.equal(err.current, STORE_FORMAT);
      assert.match(err.message, new RegExp(`format ${STORE_FORMAT + 1}, newer than the ${STORE_FORMAT}`));
      return true;
    });
    assert.deepEqual(await h.raw.smembers(`${h.prefix}:machines`), [], 'nothing was registered');
  });

  it('a populated store without a version refuses a supervisor (STORE_FORMAT_OLDER) and a client', async () => {
    h = new Harness(redis);
    await preVersioned();
    const check = (err: StoreFormatError) => {
      assert.ok(err instanceof StoreFormatError);
      assert.equal(err.code, 'STORE_FORMAT_OLDER');
      assert.equal(err.stored, 0);
      assert.equal(err.current, STORE_FORMAT);
      assert.match(err.message, /machinist migrate-store/);
      return true;
    };
    // A process that starts now: its own store, which has not checked the format yet.
    await assert.rejects(new StoreWorld(h.newStore()).started({ jobs: [echo] }), check);
    await assert.rejects(
      new StoreWorld(h.newStore()).client({ jobs: [echo] }).enqueue('echo', { n: 2 }),
      check,
    );
    assert.equal(await h.raw.get(formatKey()), null, 'a refusal stamps nothing');
    assert.equal((await h.line()).length, 1, 'the refused enqueue wrote nothing');
  });

  it('migrate-store --dry-run reports the steps and writes nothing', async () => {
    h = new Harness(redis);
    await preVersioned();
    const before = await dump();
    const run = await migrate('--dry-run');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`format 0 -> ${STORE_FORMAT} \\(dry run: nothing written\\)`));
    assert.equal(await dump(), before);
  });

  it('migrate-store stamps a pre-versioned store; then a supervisor runs the job queued before it', async () => {
    h = new Harness(redis);
    const id = await preVersioned();
    await assert.rejects(h.newStore().checkFormat(), { code: 'STORE_FORMAT_OLDER' });
    const run = await migrate();
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`format 0 -> ${STORE_FORMAT}`));
    assert.match(run.stdout, /checked 1 job record/);
    assert.equal(await h.raw.get(formatKey()), String(STORE_FORMAT));
    // A process that starts now: its own store, which checks the format at the supervisor's start.
    const supervisor = await new StoreWorld(h.newStore()).started({ jobs: [echo] });
    try {
      const done = await h
        .client({ jobs: [echo] })
        .waitForResult(id, { queue: 'default', timeoutMs: 10_000 });
      assert.equal(done.status, 'done');
      assert.equal(done.output, 7);
    } finally {
      await supervisor.stop({ graceMs: 0 });
    }
    const again = await migrate();
    assert.match(again.stdout, /current; nothing to do/);
  });

  it('migrate-store refuses a store whose records hold fields it does not know, and stamps nothing', async () => {
    h = new Harness(redis);
    const id = await preVersioned();
    await h.raw.hset(h.key(`job:${id}`), 'zz', '1');
    const run = await migrate();
    assert.equal(run.code, 1);
    assert.match(run.stderr, /'zz' that format 1 does not know.*\[STORE_LAYOUT_UNKNOWN\]/);
    assert.equal(await h.raw.get(formatKey()), null);
  });

  /** The record's `sn` as format 1 wrote it: XState's default fields in `w` and `t`, in full. */
  async function writtenInFull(id: string): Promise<string> {
    const sn = JSON.parse((await h.raw.hget(h.key(`job:${id}`), 'sn'))!) as { w: unknown; t: unknown[] };
    const full = JSON.stringify({ w: fullMachine(sn.w), t: fullTimers(sn.t) });
    await h.raw.hset(h.key(`job:${id}`), 'sn', full);
    return full;
  }

  /** A supervisor's announce to the fleet (announce-2.lua) as one of format 1 still running makes. */
  async function announceOld(workerId: string, stopped: boolean): Promise<void> {
    const [sec] = await h.raw.time();
    const facts = {
      workerId,
      host: 'old-host',
      pid: 42,
      version: '0.0.1',
      queues: ['default'],
      concurrency: 1,
      runningCount: 0,
      running: [],
      startedAt: 0,
      goneAfterMs: 60_000,
      ...(stopped ? { stopped: true } : {}),
    };
    await h.raw.hset(`${h.prefix}:{~fleet}:facts`, workerId, JSON.stringify(facts));
    await h.raw.zadd(`${h.prefix}:{~fleet}:seen`, Number(sec) * 1000, workerId);
  }

  it('format 1 -> 2: refused until migrated, refused while a supervisor runs, then its parked pipelines resume', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [parkUntil] });
    const first = await h.started({ jobs: [parkUntil] });
    const at = Date.now() + 2_000;
    const ids = await Promise.all([1, 2, 3].map((n) => client.enqueue('parkUntil', { at, n })));
    for (const id of ids) await eventually(async () => (await client.get(id))?.status === 'waiting', 5000);
    await first.stop({ graceMs: 1000 });
    // The store as format 1 left it: its parked pipelines' snapshots in full, stamped 1.
    const full = await Promise.all(ids.map(writtenInFull));
    assert.match(full[0]!, /"historyValue":\{\},.*"children":\{\}.*"source":"","target":""/);
    await h.raw.set(formatKey(), 1);

    await assert.rejects(h.newStore().checkFormat(), (err: StoreFormatError) => {
      assert.equal(err.code, 'STORE_FORMAT_OLDER');
      assert.equal(err.stored, 1);
      assert.equal(err.current, STORE_FORMAT);
      assert.match(err.message, /machinist migrate-store/);
      return true;
    });
    await assert.rejects(new StoreWorld(h.newStore()).started({ jobs: [parkUntil] }), {
      code: 'STORE_FORMAT_OLDER',
    });

    // A worker of format 1 still running (it checked the format at its start, never again).
    await announceOld('old-1', false);
    for (const args of [['--dry-run'], []]) {
      const busy = await migrate(...args);
      assert.equal(busy.code, 1);
      assert.match(
        busy.stderr,
        /format 2 is breaking and 1 supervisor\(s\) run.*old-1 \(old-host, pid 42.*\[STORE_MIGRATE_BUSY\]/s,
      );
      assert.equal(await h.raw.get(formatKey()), '1', 'nothing stamped');
    }
    await announceOld('old-1', true); // its clean stop
    const run = await migrate();
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`format 1 -> ${STORE_FORMAT}`));
    assert.match(run.stdout, /\[breaking\]/);
    assert.match(run.stdout, /checked 3 job record/);
    assert.equal(await h.raw.get(formatKey()), String(STORE_FORMAT));
    for (const [i, id] of ids.entries())
      assert.equal(await h.raw.hget(h.key(`job:${id}`), 'sn'), full[i], 'no record rewritten');

    // The parked pipelines written in full resume at their timer and end.
    const supervisor = await new StoreWorld(h.newStore()).started({ jobs: [parkUntil] });
    try {
      for (const [i, id] of ids.entries()) {
        const done = await client.waitForResult(id, { queue: 'default', timeoutMs: 15_000 });
        assert.equal(done.status, 'done');
        assert.equal(done.output, i + 1);
      }
      // One parked now is written compact.
      const later = await client.enqueue('parkUntil', { at: Date.now() + 60_000, n: 9 });
      await eventually(async () => (await client.get(later))?.status === 'waiting', 5000);
      const sn = (await h.raw.hget(h.key(`job:${later}`), 'sn'))!;
      assert.doesNotMatch(sn, /historyValue|children|source|target|"event"/);
      // No inbox event consumed: no `io` written (read back as 0).
      assert.equal(await h.raw.hexists(h.key(`job:${later}`), 'io'), 0);
      await client.cancel(later);
    } finally {
      await supervisor.stop({ graceMs: 0 });
    }
  });

  it('format 2 -> 3: the jobs a format-2 store queued stay in `queued` and run first, new ones enter the ready list', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [echo] });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await client.enqueue('echo', { n }));
    // As format 2 kept them: in the `queued` zset at their places, no ready list; stamped 2.
    for (const id of ids)
      await h.raw.zadd(h.key('queued'), (await h.raw.hget(h.key(`job:${id}`), 'qs'))!, id);
    await h.raw.del(h.key('ready'));
    await h.raw.set(formatKey(), 2);
    await assert.rejects(h.newStore().checkFormat(), { code: 'STORE_FORMAT_OLDER' });
    const before = await dump();
    const run = await migrate();
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`format 2 -> ${STORE_FORMAT}`));
    assert.match(run.stdout, /\[breaking\]/);
    assert.equal(await h.raw.get(formatKey()), String(STORE_FORMAT));
    assert.equal(
      (await dump()).replace(` string "${STORE_FORMAT}"`, ' string "2"'),
      before,
      'nothing but the stamp written',
    );
    // A process that starts now: the old jobs first (a claim of one at a time), then a new one.
    const later = await client.enqueue('echo', { n: 4 });
    assert.deepEqual(await h.raw.lrange(h.key('ready'), 0, -1), [later]);
    assert.deepEqual(await h.line(), [...ids, later]);
    const supervisor = await new StoreWorld(h.newStore()).started({ jobs: [echo] });
    try {
      for (const [i, id] of [...ids, later].entries()) {
        const done = await client.waitForResult(id, { queue: 'default', timeoutMs: 10_000 });
        assert.deepEqual([done.status, done.output], ['done', i + 1]);
      }
    } finally {
      await supervisor.stop({ graceMs: 0 });
    }
  });

  it('format 3 -> 4: records of format 3 keep v and ma and run as before, new ones leave the defaults out', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [echo] });
    const ids: string[] = [];
    for (const n of [1, 2]) ids.push(await client.enqueue('echo', { n }));
    // As format 3 wrote them: v and ma in every record, whatever they hold; stamped 3.
    for (const id of ids) await h.raw.hset(h.key(`job:${id}`), 'v', '1', 'ma', '4');
    await h.raw.set(formatKey(), 3);
    await assert.rejects(h.newStore().checkFormat(), { code: 'STORE_FORMAT_OLDER' });
    const before = await dump();
    const run = await migrate();
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /format 3 -> 4/);
    assert.match(run.stdout, /\[breaking\]/);
    assert.match(run.stdout, /checked 2 job record/);
    assert.equal(await h.raw.get(formatKey()), '4');
    assert.equal(
      (await dump()).replace(/ string "4"/, ' string "3"'),
      before,
      'nothing but the stamp written',
    );
    const later = await client.enqueue('echo', { n: 3 });
    assert.deepEqual(await h.raw.hmget(h.key(`job:${later}`), 'v', 'ma'), [null, null]);
    const supervisor = await new StoreWorld(h.newStore()).started({ jobs: [echo] });
    try {
      for (const [i, id] of [...ids, later].entries()) {
        const done = await client.waitForResult(id, { queue: 'default', timeoutMs: 10_000 });
        assert.deepEqual([done.status, done.output, done.version, done.maxAttempts], ['done', i + 1, 1, 4]);
      }
    } finally {
      await supervisor.stop({ graceMs: 0 });
    }
    for (const id of ids) assert.deepEqual(await h.raw.hmget(h.key(`job:${id}`), 'v', 'ma'), ['1', '4']);
  });

  it('migrate-store refuses a newer store with STORE_FORMAT_NEWER', async () => {
    h = new Harness(redis);
    await h.raw.set(formatKey(), STORE_FORMAT + 1);
    const run = await migrate();
    assert.equal(run.code, 1);
    assert.match(run.stderr, /\[STORE_FORMAT_NEWER\]/);
  });
});
