// A key throttle and a throttle's mode declared in a definition (defineJob / definePipeline
// `keyRateLimit`, `rateLimit.mode`; docs/flow-control.md) on both stores: the supervisor writes
// them to its queue at start; a bad one is refused when defined, naming the field.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { defineJob, definePipeline, MachinistError } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const keyed = defineJob({
  name: 'keyed',
  rateLimit: { limit: 10, perMs: 1000, mode: 'skip' },
  keyRateLimit: { limit: 2, perMs: 1000, burst: 1 },
  work: () => 1,
});

describeOnEachStore('key throttle in the definition', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it("a supervisor writes its definitions' key throttle and modes to its queue", async () => {
    h = world();
    const client = h.client({ jobs: [keyed] });
    await h.started({ jobs: [keyed], concurrency: 1 });
    assert.deepEqual((await client.queueLimits('default')).limits, {
      rateLimit: { limit: 10, perMs: 1000, burst: 0, mode: 'skip' },
      keyRateLimit: { limit: 2, perMs: 1000, burst: 1 },
    });
  });

  it('a bad key throttle or mode is refused when defined, naming the field', () => {
    const bad = (o: object, field: string) =>
      assert.throws(
        () => defineJob({ name: 'x', work: () => 1, ...o }),
        (e: unknown) =>
          e instanceof MachinistError && e.code === 'INVALID_DEFINITION' && e.message.includes(field),
      );
    bad({ keyRateLimit: { limit: 0, perMs: 1000 } }, 'keyRateLimit');
    bad({ rateLimit: { limit: 1, perMs: 1000, mode: 'drop' } }, 'rateLimit');
    const machine = setup({}).createMachine({ initial: 'a', states: { a: { type: 'final' } } });
    assert.throws(
      () => definePipeline({ name: 'p', machine, keyRateLimit: { limit: 1, perMs: 0 } }),
      (e: unknown) => e instanceof MachinistError && e.code === 'INVALID_DEFINITION',
    );
  });
});
