// Limits declared in a definition (defineJob / definePipeline `concurrency` and `rateLimit`;
// docs/flow-control.md) on both stores: the supervisor writes them to its queue at start; limits
// set at run time win, and a restart does not undo them; bad limits are refused when defined.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { defineJob, definePipeline, MachinistError } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const limited = defineJob({
  name: 'limited',
  concurrency: { total: 4, perKey: 2 },
  rateLimit: { limit: 10, perMs: 1000 },
  work: () => 1,
});
const claim = { workerId: 'w1', max: 50, leaseMs: 60_000, loadMachines: [] };

describeOnEachStore('limits in the definition', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it("a supervisor writes its definitions' limits to its queue at start", async () => {
    h = world();
    const client = h.client({ jobs: [limited] });
    await h.started({ jobs: [limited], concurrency: 1 });
    assert.deepEqual((await client.queueLimits('default')).limits, {
      total: 4,
      perKey: 2,
      rateLimit: { limit: 10, perMs: 1000, burst: 0 },
    });
  });

  it('limits set at run time win over the definition, across a restart', async () => {
    h = world();
    const client = h.client({ jobs: [limited] });
    const first = await h.started({ jobs: [limited], concurrency: 1 });
    await client.setQueueLimits('default', { concurrency: { total: 9 }, rateLimit: null });
    await first.stop();
    await h.started({ jobs: [limited], concurrency: 1 });
    assert.deepEqual((await client.queueLimits('default')).limits, { total: 9, perKey: 2 });
  });

  it("a definition's unchanged throttle, written again (a refresh), keeps its state", async () => {
    h = world();
    const client = h.client({ jobs: [limited] });
    const change = {
      total: null,
      perKey: null,
      rateLimit: { limit: 1, perMs: 60_000 },
      fromDefinition: true as const,
    };
    await h.store.setQueueFlow('default', change);
    await client.enqueueMany([1, 2, 3].map((input) => ({ machine: 'limited', input })));
    assert.equal((await h.store.commit('default', [], claim)).claimed.length, 1);
    await h.store.setQueueFlow('default', change);
    assert.equal((await h.store.commit('default', [], claim)).claimed.length, 0, 'the throttle was reset');
  });

  it('bad limits are refused when defined, naming the field', () => {
    const bad = (o: object, field: string) =>
      assert.throws(
        () => defineJob({ name: 'x', work: () => 1, ...o }),
        (e: unknown) =>
          e instanceof MachinistError && e.code === 'INVALID_DEFINITION' && e.message.includes(field),
      );
    bad({ concurrency: { total: 0 } }, 'concurrency.total');
    bad({ concurrency: { perKey: 1.5 } }, 'concurrency.perKey');
    bad({ concurrency: { totl: 3 } }, 'totl');
    bad({ rateLimit: { limit: 10 } }, 'rateLimit');
    bad({ rateLimit: { limit: 10, perMs: 1000, burst: -1 } }, 'rateLimit');
    const machine = setup({}).createMachine({ initial: 'a', states: { a: { type: 'final' } } });
    assert.throws(
      () => definePipeline({ name: 'p', machine, rateLimit: { limit: 0, perMs: 1 } }),
      (e: unknown) => e instanceof MachinistError && e.code === 'INVALID_DEFINITION',
    );
  });

  it('two definitions of one supervisor that declare different limits are refused', async () => {
    h = world();
    const other = defineJob({ name: 'other', concurrency: { total: 5 }, work: () => 1 });
    await assert.rejects(
      async () => h.started({ jobs: [limited, other], concurrency: 1 }),
      (e: unknown) =>
        e instanceof MachinistError && /limited and other declare different queue limits/.test(e.message),
    );
  });
});
