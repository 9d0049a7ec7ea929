// Machine gates declared in a definition (defineJob / definePipeline `machineConcurrency`,
// `sharedLimit`; docs/flow-control.md) on both stores: the supervisor writes each machine's gate
// to its queue; the shared limit's value, set at run time, does not stop that (it is never a
// definition's); a machine's gate set at run time wins across a restart.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, MachinistError } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const own = defineJob({ name: 'own', machineConcurrency: 1, work: () => 1 });
const charge = defineJob({ name: 'charge', sharedLimit: 'stripe', work: () => 1 });
const refund = defineJob({ name: 'refund', sharedLimit: 'stripe', work: () => 1 });
const jobs = [own, charge, refund];

describeOnEachStore('machine gates in the definition', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it("a supervisor writes each machine's gate; the shared limit is set at run time", async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', { shared: { stripe: { concurrency: 2 } } });
    const first = await h.started({ jobs, concurrency: 1 });
    const v = await client.queueLimits('default');
    assert.deepEqual(v.limits.gates, { 'm:own': 1, 's:stripe': 2 });
    assert.deepEqual(v.limits.machineGates, { own: 'm:own', charge: 's:stripe', refund: 's:stripe' });
    // A machine's gate changed at run time wins over the definitions, across a restart.
    await client.setQueueLimits('default', { machines: { own: { concurrency: 3 } } });
    await first.stop();
    await h.started({ jobs, concurrency: 1 });
    assert.deepEqual((await client.queueLimits('default')).limits.gates, { 'm:own': 3, 's:stripe': 2 });
  });

  it('refuses a bad machine gate when defined', () => {
    const bad = (o: object, field: string) =>
      assert.throws(
        () => defineJob({ name: 'x', work: () => 1, ...o }),
        (e: unknown) =>
          e instanceof MachinistError && e.code === 'INVALID_DEFINITION' && e.message.includes(field),
      );
    bad({ machineConcurrency: 0 }, 'machineConcurrency');
    bad({ sharedLimit: '' }, 'sharedLimit');
    bad({ machineConcurrency: 1, sharedLimit: 's' }, 'not both');
  });
});
