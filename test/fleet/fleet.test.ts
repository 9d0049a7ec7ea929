// The fleet (roles/Fleet.ts) on both stores: a started supervisor is listed live with its facts
// and what it runs, stopped once it stops; a worker that stops announcing is gone, listed with
// the jobs the reaper took back from it (the worker of the lease it held).

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { hasFleet, type FleetWorker } from '../../src/store/types.js';
import { eventually } from '../support/redis.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const hang = defineJob({
  name: 'hang',
  work: ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted'))),
});

describeOnEachStore('fleet', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  async function fleet(): Promise<FleetWorker[]> {
    assert.ok(hasFleet(h.store));
    return h.store.workers();
  }

  it('lists a started supervisor live with its facts and running jobs, then stopped', async () => {
    h = world();
    const sup = await h.started({ jobs: [hang], concurrency: 3, heartbeatMs: 100, workerId: 'w-live' });
    const id = await h.client({ jobs: [hang] }).enqueue('hang', null);
    const me = await eventually(async () => {
      const w = (await fleet()).find((x) => x.workerId === 'w-live');
      return w && w.runningCount === 1 ? w : undefined;
    }, 5000);
    assert.ok(me);
    assert.equal(me.status, 'live');
    assert.equal(me.pid, process.pid);
    assert.equal(me.concurrency, 3);
    assert.deepEqual(me.queues, ['default']);
    assert.match(me.version, /^\d+\.\d+\.\d+|unknown/);
    assert.ok(me.host.length > 0);
    assert.deepEqual(me.running, [{ id, queue: 'default', machine: 'hang' }]);
    assert.ok(me.heartbeatAgeMs >= 0 && me.heartbeatAgeMs < 2000, `age ${me.heartbeatAgeMs}`);
    await sup.stop({ graceMs: 0 });
    const after = (await fleet()).find((x) => x.workerId === 'w-live');
    assert.equal(after?.status, 'stopped');
  });

  it('shows a worker that stopped announcing as gone, with the jobs the reaper took back from it', async () => {
    h = world();
    assert.ok(hasFleet(h.store));
    const store = h.store;
    await h.client({ jobs: [hang] }).enqueueMany([{ machine: 'hang' }, { machine: 'hang' }]);
    const facts = {
      workerId: 'w-dead',
      host: 'box',
      pid: 1,
      version: '0.0.0',
      queues: ['default'],
      concurrency: 2,
      runningCount: 2,
      running: [],
      startedAt: Date.now(),
      goneAfterMs: 150,
    };
    await store.announce(facts);
    // It claims two jobs with a short lease, then says nothing more (as a SIGKILLed process).
    const { claimed } = await store.commit('default', [], {
      workerId: 'w-dead',
      max: 2,
      leaseMs: 100,
      loadMachines: [],
    });
    assert.equal(claimed.length, 2);
    assert.equal((await fleet())[0]?.status, 'live');
    await new Promise((r) => setTimeout(r, 250));
    const reap = await store.reap('default', { maxLeaseRequeues: 5 });
    assert.deepEqual([...reap.requeued].sort(), claimed.map((c) => c.id).sort());
    const gone = (await fleet()).find((x) => x.workerId === 'w-dead');
    assert.equal(gone?.status, 'gone');
    assert.ok(gone.heartbeatAgeMs >= 150);
    assert.deepEqual(
      gone.reaped.map((r) => [r.id, r.queue, r.outcome]).sort(),
      claimed.map((c) => [c.id, 'default', 'requeued']).sort(),
    );
  });
});
