// `machinist find` and `machinist workers`, on a store (--redis) and over HTTP (--url): filters on
// nested input, the cursor printed to go on from, a bad filter refused naming it, and the fleet.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { defineJob, Supervisor } from '../../src/index.js';
import { FAST } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, TOKEN, type Api } from '../support/api.js';
import { runCli } from '../support/cli.js';

const order = defineJob({ name: 'order', work: ({ input }) => input });

describe('machinist find and workers', () => {
  let redis: TestRedis;
  let api: Api;
  let supervisor: Supervisor | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    await supervisor?.stop({ graceMs: 0 });
    supervisor = undefined;
    await api?.close();
  });

  async function seed(): Promise<void> {
    api = await startApi(redis, { jobs: [order] });
    for (let n = 0; n < 12; n++)
      await api.call('POST', '/jobs', {
        body: { machine: 'order', input: { order: { id: n % 4, sku: `AB-${n}` } } },
      });
  }

  it('finds jobs by nested input on --redis and on --url, and says where to go on from', async () => {
    await seed();
    const onRedis = ['--redis', redis.url, '--prefix', api.prefix];
    const onUrl = ['--url', api.url, '--token', TOKEN];
    for (const where of [onRedis, onUrl]) {
      const all = await runCli([...where, 'find', 'input.order.id = 1', '--json', '--all']);
      assert.equal(all.code, 0, all.stderr);
      const page = JSON.parse(all.stdout) as { jobs: { input: { order: { id: number } } }[]; cursor: null };
      assert.equal(page.jobs.length, 3);
      assert.ok(page.jobs.every((j) => j.input.order.id === 1));
      assert.equal(page.cursor, null);
      const text = await runCli([...where, 'find', 'input.order.sku startsWith AB-1', '--scan', '5']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /5 records read/);
      assert.match(text.stdout, /more: --cursor default\/\d+\/\d+/);
    }
  });

  it('refuses a bad filter with a usage error naming it', async () => {
    await seed();
    const r = await runCli(['--redis', redis.url, '--prefix', api.prefix, 'find', 'input.n ~ 4']);
    assert.equal(r.code, 2, 'a usage error');
    assert.match(r.stderr, /cannot read the filter "input.n ~ 4".*INVALID_INPUT/);
  });

  it('lists a running supervisor with `machinist workers`', async () => {
    await seed();
    supervisor = new Supervisor({
      store: api.store,
      jobs: [order],
      logger: pino({ level: 'silent' }),
      ...FAST,
    });
    await supervisor.start();
    const r = await runCli(['--redis', redis.url, '--prefix', api.prefix, 'workers']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /WORKER\s+STATUS\s+HOST\s+PID/);
    const line = r.stdout.split('\n').find((l) => l.startsWith(supervisor!.workerId));
    assert.ok(line, r.stdout);
    assert.match(line, new RegExp(`\\blive\\b.*\\b${process.pid}\\b.*\\bdefault\\b`));
    const viaUrl = await runCli(['--url', api.url, '--token', TOKEN, 'workers', '--json']);
    assert.equal(viaUrl.code, 0, viaUrl.stderr);
    assert.equal((JSON.parse(viaUrl.stdout) as { workerId: string }[])[0]?.workerId, supervisor.workerId);
  });
});
