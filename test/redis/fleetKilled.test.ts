// The fleet with a real supervisor process (test/fixtures/worker.ts): listed live with its pid
// and the jobs it runs; after SIGKILL, gone, with the jobs another supervisor's reaper took back
// from it. Redis only: the killed worker is another process.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { hasFleet } from '../../src/store/types.js';
import { eventually } from '../support/redis.js';
import { fixtureSuite } from '../support/spawnFixture.js';

describe('fleet of real processes', () => {
  const suite = fixtureSuite();

  it('lists a supervisor process with its facts, and after SIGKILL as gone with its requeued jobs', async () => {
    const { h, w } = await suite.spawn('worker.ts');
    assert.ok(hasFleet(h.store));
    const store = h.store;
    const ids = await h.client().enqueueMany([0, 1].map((n) => ({ machine: 'slow', input: { n } })));
    await eventually(() => ids.every((id) => w.started.has(id)), 10_000);
    const live = await eventually(async () => {
      const found = (await store.workers()).find((x) => x.pid === w.child.pid);
      return found && found.runningCount === 2 ? found : undefined;
    }, 5000);
    assert.ok(live);
    assert.equal(live.status, 'live');
    assert.deepEqual(live.queues, ['default']);
    assert.equal(live.concurrency, 10);
    assert.deepEqual(live.running.map((r) => r.id).sort(), [...ids].sort());
    assert.ok(live.running.every((r) => r.machine === 'slow' && r.queue === 'default'));

    await w.sigkill();
    // A survivor's reaper takes the jobs back when their lease passes.
    const slow = defineJob({ name: 'slow', work: () => 'recovered' });
    await h.started({ jobs: [slow], reaperIntervalMs: 100 });
    const gone = await eventually(async () => {
      const found = (await store.workers()).find((x) => x.workerId === live.workerId);
      return found?.status === 'gone' && found.reaped.length === 2 ? found : undefined;
    }, 10_000);
    assert.ok(gone);
    assert.deepEqual(gone.reaped.map((r) => r.id).sort(), [...ids].sort());
    assert.ok(gone.reaped.every((r) => r.outcome === 'requeued' && r.queue === 'default'));
    const survivor = (await store.workers()).find((x) => x.workerId !== live.workerId);
    assert.equal(survivor?.status, 'live', 'the survivor is listed live beside it');
  });
});
