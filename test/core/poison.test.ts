// A job whose state cannot be stored as JSON (a BigInt or a cycle in its context, output or
// progress; an inline actor spawned in an assign) fails alone, at once and for good, with
// UNSERIALIZABLE_SNAPSHOT naming where the value is; the worker process and its other jobs go
// on. The worker is a real child process: a throw nothing catches would kill it.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { allJobs, poisonPipelines } from '../fixtures/poisonJobs.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/poisonWorker.ts', import.meta.url));

/** Where each poison job's bad value is, as the error must name it. */
const POISON: Record<string, RegExp> = {
  bigCompiled: /BigInt at context\.bad\b/,
  bigXstate: /BigInt at context\.bad\b/,
  cycleCompiled: /circular reference at context\.bad\.self\b/,
  cycleXstate: /circular reference at context\.bad\.self\b/,
  spawnCompiled: /inline child actor/,
  spawnXstate: /inline child actor at children\./,
  bigOutput: /BigInt at output\.total\b/,
  cycleProgress: /circular reference at progress\.step\.self\b/,
};

describe('jobs whose state cannot be stored', () => {
  let redis: TestRedis;
  let h: Harness;
  let child: ChildProcess | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await h.close();
  });

  it('fail alone with UNSERIALIZABLE_SNAPSHOT on their first attempt, beside healthy jobs that end done, and the worker lives on', async () => {
    // The two runtimes really are both covered.
    for (const def of poisonPipelines)
      assert.equal(def.compiled !== null, def.name.endsWith('Compiled'), `${def.name} runtime`);

    h = new Harness(redis);
    child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      env: { ...process.env, REDIS_URL: redis.url, PREFIX: h.prefix, MACHINIST_LOG: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let exited: string | undefined;
    child.once('exit', (code, signal) => (exited = `code ${code} signal ${signal}`));
    await new Promise<void>((resolve, reject) => {
      child!.once('exit', () => reject(new Error('worker exited before READY')));
      child!.stdout!.on('data', (d: Buffer) => d.toString().includes('READY') && resolve());
    });

    const client = h.client({ jobs: allJobs });
    const items: { machine: string; input?: unknown }[] = [];
    // Healthy jobs before, between and after the poison ones, in one worker.
    for (const name of Object.keys(POISON)) {
      items.push({ machine: 'healthy', input: items.length }, { machine: name });
      items.push({ machine: 'healthyPipeline' });
    }
    items.push({ machine: 'healthy', input: 99 });
    const ids = await client.enqueueMany(items);
    const settled = await Promise.allSettled(
      ids.map((id) => client.waitForResult(id, { timeoutMs: 20_000 })),
    );

    assert.equal(exited, undefined, 'the worker process is alive');
    const records = settled.map((r) => {
      if (r.status === 'rejected') throw r.reason;
      return r.value;
    });
    for (const [i, rec] of records.entries()) {
      const machine = items[i]!.machine;
      const pattern = POISON[machine];
      if (!pattern) {
        assert.equal(rec.status, 'done', `${machine} ${rec.id}`);
        continue;
      }
      assert.equal(rec.status, 'failed', machine);
      assert.equal(rec.error?.code, 'UNSERIALIZABLE_SNAPSHOT', `${machine}: ${rec.error?.message}`);
      assert.match(rec.error?.message ?? '', pattern, machine);
      assert.equal(rec.attempts, 1, `${machine} is not retried`);
      const log = await client.events(rec.id);
      assert.equal(log.filter((e) => e.type === 'failed').length, 1, `${machine} failed once`);
    }
    const dead = (await client.deadLetters({ limit: 100 })).map((d) => d.id).sort();
    const poisonIds = ids.filter((_, i) => POISON[items[i]!.machine]).sort();
    assert.deepEqual(dead, poisonIds, 'each poison job is dead-lettered once, and nothing else');
    assert.equal(exited, undefined, 'the worker process is still alive');
  });
});
