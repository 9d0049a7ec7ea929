// Redis only: the worker is a child process, which cannot share a MemoryStore.
// A job whose state cannot be stored (a class instance or a cycle in its context, output or
// progress; an inline actor spawned in an assign) fails alone, at once and for good, with
// UNSERIALIZABLE_SNAPSHOT naming where the value is; one that spawns a name not registered in
// setup({ actors }) where no static check sees it (an assign, an enqueueActions) fails so with
// UNREGISTERED_ACTOR. The worker process and its other jobs go on. The worker is a real child process: a throw nothing catches would kill it.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { fixtureEnv, killFixture, spawnFixture } from '../support/spawnFixture.js';
import { allJobs, poisonPipelines } from '../fixtures/poisonJobs.js';

const UNSERIALIZABLE = 'UNSERIALIZABLE_SNAPSHOT';
const UNREGISTERED = 'UNREGISTERED_ACTOR';

/** Each poison job's error code, and where its bad value is, as the error must name it. */
const POISON: Record<string, [string, RegExp]> = {
  classCompiled: [UNSERIALIZABLE, /class instance \(Money\) at context\.bad\b/],
  classXstate: [UNSERIALIZABLE, /class instance \(Money\) at context\.bad\b/],
  cycleCompiled: [UNSERIALIZABLE, /circular reference at context\.bad\.self\b/],
  cycleXstate: [UNSERIALIZABLE, /circular reference at context\.bad\.self\b/],
  cycleAtEndCompiled: [UNSERIALIZABLE, /circular reference at context\.bad\.self\b/],
  cycleAtEndXstate: [UNSERIALIZABLE, /circular reference at context\.bad\.self\b/],
  spawnCompiled: [UNSERIALIZABLE, /inline child actor/],
  spawnXstate: [UNSERIALIZABLE, /inline child actor at children\./],
  ghostCompiled: [UNREGISTERED, /spawns 'ghost', which is not registered in setup\(\{ actors \}\)/],
  ghostXstate: [UNREGISTERED, /spawns 'ghost', which is not registered in setup\(\{ actors \}\)/],
  registeredSpawnCompiled: ['SPAWN_IN_COMPILED_PIPELINE', /spawns 'second'.*pass compile: false/],
  enqueuedGhostXstate: [UNREGISTERED, /child 'g' .*not registered in setup\(\{ actors \}\)/],
  enqueuedInlineXstate: [UNSERIALIZABLE, /inline child actor at children\.g\b/],
  classOutput: [UNSERIALIZABLE, /class instance \(Money\) at output\.total\b/],
  cycleProgress: [UNSERIALIZABLE, /circular reference at progress\.step\.self\b/],
};

describe('jobs whose state cannot be stored, or that spawn what no worker can run', () => {
  let redis: TestRedis;
  let h: Harness;
  let child: ChildProcess | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    killFixture(child);
    await h.close();
  });

  it('fail alone with UNSERIALIZABLE_SNAPSHOT or UNREGISTERED_ACTOR on their first attempt, beside healthy jobs that end done, and the worker lives on', async () => {
    // The two runtimes really are both covered.
    for (const def of poisonPipelines)
      assert.equal(def.compiled !== null, def.name.endsWith('Compiled'), `${def.name} runtime`);

    h = new Harness(redis);
    const worker = spawnFixture('poisonWorker.ts', fixtureEnv(redis, h.prefix));
    child = worker.child;
    let exited: string | undefined;
    child.once('exit', (code, signal) => (exited = `code ${code} signal ${signal}`));
    await worker.ready;

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
    // Every job's outcome is checked before any is asserted: one failure names all that differ.
    const wrong: string[] = [];
    for (const [i, rec] of records.entries()) {
      const machine = items[i]!.machine;
      const poison = POISON[machine];
      if (!poison) {
        if (rec.status !== 'done') wrong.push(`${machine} ${rec.id}: ${rec.status}`);
        continue;
      }
      const [code, pattern] = poison;
      const log = await client.events(rec.id);
      const failures = log.filter((e) => e.type === 'failed').length;
      const got = `${rec.status} ${rec.error?.code} attempts ${rec.attempts} failed ${failures}: ${rec.error?.message}`;
      const ok =
        rec.status === 'failed' &&
        rec.error?.code === code &&
        pattern.test(rec.error.message) &&
        rec.attempts === 1 &&
        failures === 1;
      if (!ok) wrong.push(`${machine}: expected failed ${code} ${pattern} at once, got ${got}`);
    }
    assert.deepEqual(wrong, []);
    const dead = (await client.deadLetters({ limit: 100 })).map((d) => d.id).sort();
    const poisonIds = ids.filter((_, i) => POISON[items[i]!.machine]).sort();
    assert.deepEqual(dead, poisonIds, 'each poison job is dead-lettered once, and nothing else');
    assert.equal(exited, undefined, 'the worker process is still alive');
  });
});
