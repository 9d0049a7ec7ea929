// Fan-out under worker crashes, with real worker processes killed by SIGKILL: every job ends in
// the right terminal state exactly once.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, RedisStore } from '../../src/index.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { killFixture, spawnFixture } from '../support/spawnFixture.js';

const N = 20;

describe('fan-out crash cases', () => {
  let redis: TestRedis;
  const workers: ChildProcess[] = [];
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(() => {
    for (const w of workers.splice(0)) killFixture(w);
  });

  async function worker(env: Record<string, string>): Promise<ChildProcess> {
    const { child, ready } = spawnFixture('fanWorker.ts', env);
    workers.push(child);
    await ready;
    return child;
  }

  function setupRun() {
    const prefix = uniquePrefix('fcrash');
    const runLog = join(mkdtempSync(join(tmpdir(), 'machinist-fan-')), 'runs.log');
    writeFileSync(runLog, '');
    const store = new RedisStore({ url: redis.url, prefix });
    const client = new Client({ store });
    const runs = () => readFileSync(runLog, 'utf8').trim().split('\n').filter(Boolean);
    return { env: { REDIS_URL: redis.url, PREFIX: prefix, RUN_LOG: runLog }, store, client, runs };
  }

  async function expectAllDoneOnce(client: Client, id: string, runs: () => string[]) {
    const done = await client.waitForResult(id, { timeoutMs: 20_000 });
    assert.equal(done.status, 'done');
    assert.equal(done.output, ((N * (N - 1)) / 2) * 2);
    const parent = await client.get(id);
    assert.equal(parent!.children!.total, N);
    assert.equal(parent!.children!.finished, N);
    for (let i = 0; i < N; i++) {
      const c = await client.get(`${id}.kids.${i}`);
      assert.equal(c!.status, 'done', `child ${i}`);
      assert.equal(c!.output, i * 2);
    }
    // Exactly N children exist: the fan-out was not repeated under other ids.
    const all = await client.list({ parentId: id, limit: 1000 });
    const elsewhere = await client.list({ queue: 'kids', parentId: id, limit: 1000 });
    assert.equal(all.jobs.length + elsewhere.jobs.length, N);
    return runs();
  }

  it('the parent’s worker dies during fan-out: the step re-runs without fanning out twice', async () => {
    const t = setupRun();
    const first = await worker({ ...t.env, KILL_AFTER_ENQUEUE: '1' });
    const exited = new Promise((r) => first.once('exit', r));
    const id = await t.client.enqueue('fanParent', { n: N });
    await exited;
    await worker(t.env);
    const runs = await expectAllDoneOnce(t.client, id, t.runs);
    // The step ran again on the second worker (it may find the children already finished, then
    // it has nothing to enqueue); either way exactly N children exist (checked above).
    assert.ok((await t.client.events(id)).some((e) => e.type === 'lease-requeued'));
    assert.ok(runs.filter((l) => l.startsWith('enqueued')).length <= 2);
    assert.equal(runs.filter((l) => l.startsWith('child')).length, N);
    assert.equal(runs.filter((l) => l.startsWith('merge')).length, 1);
    t.client.close();
    await t.store.close();
  });

  it('a child’s worker dies: the child is retried on another worker after its lease and the parent completes', async () => {
    const t = setupRun();
    await worker(t.env);
    const childWorker = await worker({ ...t.env, QUEUE: 'kids', KILL_IN_CHILD: '1' });
    const exited = new Promise((r) => childWorker.once('exit', r));
    const id = await t.client.enqueue('fanParent', { n: N, childQueue: 'kids' });
    await exited;
    await worker({ ...t.env, QUEUE: 'kids' });
    const runs = await expectAllDoneOnce(t.client, id, t.runs);
    const childRuns = runs.filter((l) => l.startsWith('child'));
    // One child ran twice (the one in flight at the kill); up to 7 others in flight may too.
    assert.ok(childRuns.length >= N + 1 && childRuns.length <= N + 8, `${childRuns.length} child runs`);
    assert.equal(runs.filter((l) => l.startsWith('merge')).length, 1);
    t.client.close();
    await t.store.close();
  });

  it('the parent’s worker dies right after the last child completes: the parent resumes and ends once', async () => {
    const t = setupRun();
    const first = await worker({ ...t.env, KILL_IN_MERGE: '1' });
    const exited = new Promise((r) => first.once('exit', r));
    const id = await t.client.enqueue('fanParent', { n: N });
    await exited;
    await worker(t.env);
    const runs = await expectAllDoneOnce(t.client, id, t.runs);
    assert.equal(runs.filter((l) => l.startsWith('merge')).length, 2);
    assert.equal(runs.filter((l) => l.startsWith('child')).length, N);
    t.client.close();
    await t.store.close();
  });
});
