// Sandboxed jobs (defineJob `sandbox`): each attempt's work runs in a worker_threads thread of
// its own, so work that blocks the event loop for good, exits or crashes fails that attempt
// only, while the other jobs of the same `machinist worker` process go on. The result, errors
// (their code and nonRetryable), progress and the abort signal cross the thread boundary.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { killFixture, spawnFixture } from '../support/spawnFixture.js';
import { killCliWorker, startCliWorker, type CliWorker } from '../support/cliWorker.js';
import { Client, NonRetryableError, RedisStore, RetryLaterError, defineJob } from '../../src/index.js';
import { crossError, reviveError } from '../../src/runtime/sandbox/sandboxMessages.js';

const JOBS = 'test/fixtures/sandboxJobs.ts';

describe('sandboxed jobs (machinist worker)', () => {
  let redis: TestRedis;
  let store: RedisStore | undefined;
  let worker: CliWorker | undefined;
  let client: Client | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    killCliWorker(worker);
    client?.close();
    await store?.close();
  });

  async function start(): Promise<{ w: CliWorker; client: Client }> {
    const prefix = uniquePrefix('sandbox');
    store = new RedisStore({ url: redis.url, prefix });
    const w = (worker = await startCliWorker(redis, prefix, JOBS, '--concurrency', '10'));
    return { w, client: (client = new Client({ store })) };
  }

  it(
    'fails only the attempt whose thread loops forever, exits or crashes; the other jobs on the worker end done',
    { timeout: 120_000 },
    async () => {
      const { w, client } = await start();
      let exited: string | undefined;
      void w.exited.then((how) => (exited = how));
      const enqueue = (machine: string, input?: unknown) => client.enqueue(machine, input);
      const ids = {
        steady1: await enqueue('steady', 1),
        spin: await enqueue('spin'),
        exiter: await enqueue('exiter'),
        crasher: await enqueue('crasher'),
        refuses: await enqueue('refuses'),
        missingExport: await enqueue('missingExport'),
        reporter: await enqueue('reporter', 21),
        loader: await enqueue('loader', 7),
        steady2: await enqueue('steady', 2),
      };
      await Promise.allSettled(
        Object.values(ids).map((id) => client.waitForResult(id, { timeoutMs: 60_000 })),
      );
      assert.equal(exited, undefined, `the worker process is alive:\n${w.output()}`);
      const rec = async (id: string) => (await client.get(id))!;
      for (const [key, id] of Object.entries(ids))
        assert.ok(['done', 'failed'].includes((await rec(id)).status), `${key} ended`);

      for (const [key, n] of [
        ['steady1', 1],
        ['steady2', 2],
      ] as const) {
        const r = await rec(ids[key]);
        assert.deepEqual([r.status, r.output], ['done', n * 2], key);
      }
      const spin = await rec(ids.spin);
      assert.deepEqual([spin.status, spin.error?.code, spin.attempts], ['failed', 'TIMEOUT', 1]);
      const exiter = await rec(ids.exiter);
      assert.equal(exiter.status, 'failed');
      assert.equal(exiter.error?.code, 'SANDBOX_EXITED');
      assert.match(exiter.error.message, /exited with code 3 before its work ended/);
      const crasher = await rec(ids.crasher);
      assert.deepEqual([crasher.status, crasher.error?.message], ['failed', 'crash in the thread']);
      // The error's code and nonRetryable cross: one attempt of the three allowed.
      const refuses = await rec(ids.refuses);
      assert.deepEqual(
        [refuses.status, refuses.error?.code, refuses.attempts],
        ['failed', 'BAD_DOCUMENT', 1],
      );
      const missing = await rec(ids.missingExport);
      assert.deepEqual(
        [missing.status, missing.error?.code, missing.attempts],
        ['failed', 'SANDBOX_LOAD', 1],
      );
      assert.match(missing.error!.message, /has no export 'noSuchExport'/);
      // The result and progress cross; the work ran off the main thread with the attempt's args.
      const reporter = await rec(ids.reporter);
      assert.equal(reporter.status, 'done');
      assert.deepEqual(reporter.output, {
        doubled: 42,
        jobId: ids.reporter,
        attempt: 1,
        idempotencyKey: `${ids.reporter}:working:1`,
        inThread: true,
      });
      assert.deepEqual(reporter.progress, { half: true });
      const loader = await rec(ids.loader);
      assert.deepEqual([loader.status, loader.output], ['done', { product: 21, dateCrossed: true }]);

      w.child.kill('SIGTERM');
      assert.equal(await w.exited, 'code 0', w.output());
    },
  );

  it("carries the job's abort signal into its thread (a cancel)", async () => {
    const { w, client } = await start();
    const id = await client.enqueue('waiter');
    await eventually(() => w.output().includes(`THREAD WAITING ${id}`), 20_000);
    await client.cancel(id);
    await eventually(() => w.output().includes('THREAD SAW ABORT cancel'), 10_000);
    await eventually(async () => (await client.get(id))?.status === 'cancelled', 10_000);
  });

  it('fails, for good and saying why, a job whose module starts a Supervisor when the thread imports it', async () => {
    const prefix = uniquePrefix('sandbox-self');
    store = new RedisStore({ url: redis.url, prefix });
    const fixture = spawnFixture('selfStartingWorker.ts', { REDIS_URL: redis.url, PREFIX: prefix });
    try {
      await fixture.ready;
      const c = (client = new Client({ store }));
      const id = await c.enqueue('inline');
      await c.waitForResult(id, { timeoutMs: 30_000 }).catch(() => undefined);
      const rec = await c.get(id);
      assert.deepEqual([rec?.status, rec?.error?.code, rec?.attempts], ['failed', 'SANDBOX_LOAD', 1]);
      assert.match(rec!.error!.message, /Supervisor\.start\(\) was called in a sandbox thread/);
    } finally {
      killFixture(fixture.child);
    }
  });

  it('brings an error back across the thread boundary with its code, nonRetryable and class (RetryLaterError)', () => {
    const later = reviveError(crossError(new RetryLaterError(50, 'busy')));
    assert.ok(later instanceof RetryLaterError);
    assert.deepEqual([later.delayMs, later.message, later.code], [50, 'busy', 'RETRY_LATER']);
    const final = reviveError(crossError(new NonRetryableError('no', { code: 'BAD' })));
    assert.deepEqual(
      [final.name, (final as { code?: string }).code, (final as { nonRetryable?: boolean }).nonRetryable],
      ['NonRetryableError', 'BAD', true],
    );
    const plain = reviveError(crossError('a string'));
    assert.deepEqual([plain.name, plain.message], ['Error', 'a string']);
  });

  it('refuses a sandbox option it cannot run when the job is defined', () => {
    const work = () => 1;
    assert.throws(
      () => defineJob({ name: 'x', work, sandbox: { module: './relative.js' } }),
      /sandbox module must be a file URL or an absolute path/,
    );
    assert.throws(
      () => defineJob({ name: 'x', work, sandbox: 'process' as never }),
      (err: Error & { code?: string; field?: string }) =>
        err.name === 'DefinitionError' && err.field === 'sandbox',
    );
    const def = defineJob({ name: 'x', work, sandbox: 'thread' });
    assert.equal(def.sandbox?.href, import.meta.url, "'thread' names the module that called defineJob");
  });
});
