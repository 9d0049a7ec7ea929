// `machinist enqueue --batch <file|->`: one job a line, enqueued all or nothing, the ids printed in
// line order; with --wait, each job's end. On both backends: a store opened with --redis, and the
// HTTP API (--url, POST /jobs/batch), each over a real redis-server with a supervisor running.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { defineJob, NonRetryableError, RedisStore, Supervisor } from '../../src/index.js';
import { FAST } from '../support/harness.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { startApi, TOKEN, type Api } from '../support/api.js';
import { runCli, type Run } from '../support/cli.js';

const echo = defineJob({
  name: 'echo',
  work: async ({ input }: { input: { n?: number; sleepMs?: number; fail?: boolean } }) => {
    if (input?.sleepMs) await new Promise((r) => setTimeout(r, input.sleepMs));
    if (input?.fail) throw new NonRetryableError('asked to fail');
    return input;
  },
});

const lines = (...jobs: unknown[]) => jobs.map((j) => JSON.stringify(j)).join('\n') + '\n';
const ok = (r: Run) => assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);

for (const via of ['redis', 'url'] as const) {
  describe(`machinist enqueue --batch (--${via})`, () => {
    let redis: TestRedis;
    let raw: Redis;
    let store: RedisStore;
    let prefix: string;
    let api: Api | undefined;
    let supervisor: Supervisor | undefined;
    before(async () => {
      redis = await startRedis();
      raw = new Redis(redis.url);
    });
    after(async () => {
      raw.disconnect();
      await redis.stop();
    });
    afterEach(async () => {
      await supervisor?.stop({ graceMs: 0 });
      supervisor = undefined;
      await api?.close();
      api = undefined;
      await store?.close();
    });

    /** A store with a supervisor on it (its registry names `echo`), and the API over it for --url. */
    async function start(): Promise<void> {
      if (via === 'url') {
        api = await startApi(redis, { jobs: [echo] });
        store = api.store;
        prefix = api.prefix;
      } else {
        prefix = uniquePrefix('clibatch');
        store = new RedisStore({ url: redis.url, prefix });
      }
      supervisor = new Supervisor({ store, jobs: [echo], logger: pino({ level: 'silent' }), ...FAST });
      await supervisor.start();
    }
    const cli = (stdin: string, ...args: string[]) =>
      runCli(
        [
          ...(via === 'url'
            ? ['--url', api!.url, '--token', TOKEN]
            : ['--redis', redis.url, '--prefix', prefix]),
          'enqueue',
          '--batch',
          '-',
          ...args,
        ],
        { stdin, env: { MACHINIST_URL: '', REDIS_URL: '' } },
      );
    /** The store's keys but the supervisor's own (its reaper's lock comes and goes). */
    const keys = async () =>
      (await raw.keys(`${prefix}*`)).filter((k) => !/:reaplock$|\{~fleet\}/.test(k)).sort();

    it('prints the ids in line order, each job with its line options and the flags as defaults', async () => {
      await start();
      const run = await cli(
        lines(
          { machine: 'echo', input: { n: 0, sleepMs: 60_000 } },
          { machine: 'echo', input: { n: 1, sleepMs: 60_000 }, priority: 'critical' },
          { machine: 'echo', input: { n: 2, sleepMs: 60_000 }, delayMs: 60_000 },
        ),
        '--priority',
        'low',
      );
      ok(run);
      const ids = run.stdout.trim().split('\n');
      assert.equal(ids.length, 3);
      const jobs = await Promise.all(ids.map((id) => store.getJob(id)));
      assert.deepEqual(
        jobs.map((j) => [(j!.input as { n: number }).n, j!.priority]),
        [
          [0, 'low'],
          [1, 'critical'],
          [2, 'low'],
        ],
      );
    });

    it('writes nothing when a line is refused, and names the line', async () => {
      await start();
      const before = await keys();
      const unknown = await cli(lines({ machine: 'echo' }, { machine: 'echo' }, { machine: 'nope' }));
      assert.equal(unknown.code, 3, unknown.stderr);
      assert.match(unknown.stderr, /stdin line 3: .*nope/);
      const badOption = await cli(lines({ machine: 'echo' }, { machine: 'echo', maxAttempts: 0 }));
      assert.notEqual(badOption.code, 0);
      assert.match(badOption.stderr, /stdin line 2: .*maxAttempts/);
      const notJson = await cli('{"machine":"echo"}\n{nope\n');
      assert.equal(notJson.code, 2);
      assert.match(notJson.stderr, /stdin line 2 is not valid JSON/);
      const unknownField = await cli(lines({ machine: 'echo', colour: 'red' }));
      assert.equal(unknownField.code, 2);
      assert.match(unknownField.stderr, /line 1: field 'colour' is not a known field/);
      assert.equal(unknown.stdout + badOption.stdout + notJson.stdout + unknownField.stdout, '');
      assert.deepEqual(await keys(), before);
    });

    it('--wait prints each job end in line order; exit 0 when all are done, 1 when one failed', async () => {
      await start();
      const done = await cli(
        lines({ machine: 'echo', input: { n: 0 } }, { machine: 'echo', input: { n: 1 } }),
        '--wait',
        '20000',
      );
      ok(done);
      const out = done.stdout.trim().split('\n');
      assert.equal(out.length, 2);
      assert.match(out[0]!, /^[0-9A-Z]{26} done \{"n":0\}$/);
      assert.match(out[1]!, /^[0-9A-Z]{26} done \{"n":1\}$/);
      const failed = await cli(
        lines({ machine: 'echo', input: { n: 0 } }, { machine: 'echo', input: { fail: true } }),
        '--wait',
        '20000',
        '--json',
      );
      assert.equal(failed.code, 1, failed.stderr);
      const records = failed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { status: string; error?: { message: string } });
      assert.deepEqual(
        records.map((r) => r.status),
        ['done', 'failed'],
      );
      assert.match(records[1]!.error!.message, /asked to fail/);
    });

    it('--wait says which jobs did not finish in time, and exits 1', async () => {
      await start();
      const run = await cli(
        lines({ machine: 'echo', input: { n: 0 } }, { machine: 'echo', input: { sleepMs: 60_000 } }),
        '--wait',
        '3000',
      );
      assert.equal(run.code, 1, run.stderr);
      const out = run.stdout.trim().split('\n');
      assert.match(out[0]!, /^[0-9A-Z]{26} done /);
      assert.match(out[1]!, /^[0-9A-Z]{26} not finished: .*did not finish within/);
    });
  });
}
