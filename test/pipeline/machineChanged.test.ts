// A machine changed without a new version: its stored jobs' snapshots were written by the
// registered definition, which the new one may not restore. The registry keeps a fingerprint of
// each name@version's definition; a supervisor whose definition differs refuses to start.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { definePipeline, step, type MachinistError } from '../../src/index.js';
import { Registry } from '../../src/runtime/registry.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';

describe('a machine changed without a new version', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  const machine = (state: string, work = async () => 1) =>
    setup({ actors: { work: step(work) } }).createMachine({
      initial: 'run',
      states: {
        run: { invoke: { id: 'w', src: 'work', onDone: state } },
        [state]: { on: { GO: 'end' } },
        end: { type: 'final' },
      },
    });

  it('refuses to start, naming the machine, the version and its unfinished jobs; an explicit option accepts it', async () => {
    const h = new Harness(redis);
    try {
      const v1 = definePipeline({ name: 'chg', version: 1, machine: machine('wait') });
      const sup1 = await h.started({ jobs: [v1] });
      const client = h.client({ jobs: [v1] });
      const ids = [await client.enqueue('chg', {}), await client.enqueue('chg', {})];
      const done = await client.enqueue('chg', {});
      await eventually(async () => (await client.get(done))?.status === 'waiting');
      await client.send(done, { type: 'GO' });
      await client.waitForResult(done, { timeoutMs: 5000 });
      for (const id of ids) await eventually(async () => (await client.get(id))?.status === 'waiting');
      await sup1.stop();

      const changed = definePipeline({ name: 'chg', version: 1, machine: machine('pause') });
      await assert.rejects(h.started({ jobs: [changed] }), (err: MachinistError) => {
        assert.equal(err.code, 'MACHINE_CHANGED');
        assert.equal(err.machine, 'chg');
        assert.match(err.message, /'chg' version 1/);
        assert.match(err.message, /2 unfinished jobs/);
        assert.match(err.message, /bump the version/);
        assert.match(err.message, /acceptChangedMachines/);
        return true;
      });
      // Nothing was claimed by the refused supervisor.
      for (const id of ids) assert.equal((await client.get(id))?.status, 'waiting');

      // The same definition built again, or with other step code, is the same machine.
      const same = definePipeline({ name: 'chg', version: 1, machine: machine('wait', async () => 2) });
      await (await h.started({ jobs: [same] })).stop();
      // A new version is a new machine.
      const v2 = definePipeline({ name: 'chg', version: 2, machine: machine('pause') });
      await (await h.started({ jobs: [v1, v2] })).stop();

      // Accepted explicitly: it starts, and the registry holds the new definition from then on.
      await (await h.started({ jobs: [changed], acceptChangedMachines: ['chg@1'] })).stop();
      // An old deployment's supervisor that still runs refreshes the registry: it does not undo it.
      await h.store.registerMachines(new Registry([v1]).info());
      await (await h.started({ jobs: [changed] })).stop();
      await assert.rejects(h.started({ jobs: [v1] }), { code: 'MACHINE_CHANGED' });
    } finally {
      await h.close();
    }
  });
});
