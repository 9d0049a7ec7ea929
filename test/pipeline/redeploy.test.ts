// Pipelines across deployments: a job stored by one version of its machine, run by workers that
// have another. A job keeps its version; a newer definition with `migrate` takes it over.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { definePipeline } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';

describe('pipelines across redeploys', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  const waitV1 = () =>
    setup({}).createMachine({
      initial: 'wait',
      states: { wait: { on: { GO: 'end' } }, end: { type: 'final' } },
      output: () => 'v1',
    });

  it('fails a job whose stored version is not registered, with the reason, and keeps serving others', async () => {
    const h = new Harness(redis);
    try {
      const v1 = definePipeline({ name: 'ver', version: 1, machine: waitV1() });
      const sup1 = await h.started({ jobs: [v1] });
      const client = h.client({ jobs: [v1] });
      const id = await client.enqueue('ver', {});
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      await sup1.stop();
      const v2 = setup({}).createMachine({
        initial: 'other',
        states: { other: { on: { GO: 'end' } }, end: { type: 'final' } },
        output: () => 'v2',
      });
      await h.started({ jobs: [definePipeline({ name: 'ver', version: 2, machine: v2 })] });
      await client.send(id, { type: 'GO' });
      const rec = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(rec.status, 'failed');
      assert.equal(rec.error?.code, 'UNKNOWN_VERSION');
      assert.match(rec.error?.message ?? '', /version 1 is not registered/);
      const other = await h.client().enqueue('ver', {});
      await eventually(async () => (await client.get(other))?.status === 'waiting');
    } finally {
      await h.close();
    }
  });

  it('upgrades an old snapshot with the migrate hook', async () => {
    const h = new Harness(redis);
    try {
      const v1 = definePipeline({ name: 'mig', version: 1, machine: waitV1() });
      const sup1 = await h.started({ jobs: [v1] });
      const client = h.client({ jobs: [v1] });
      const id = await client.enqueue('mig', {});
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      await sup1.stop();
      const v2 = setup({}).createMachine({
        initial: 'pending',
        states: { pending: { on: { GO: 'end' } }, end: { type: 'final' } },
        output: () => 'migrated',
      });
      const migrate = (snap: unknown, from: number) => {
        assert.equal(from, 1);
        const s = snap as { value: string };
        return { ...s, value: s.value === 'wait' ? 'pending' : s.value };
      };
      await h.started({ jobs: [definePipeline({ name: 'mig', version: 2, machine: v2, migrate })] });
      await client.send(id, { type: 'GO' });
      const rec = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(rec.status, 'done');
      assert.equal(rec.output, 'migrated');
    } finally {
      await h.close();
    }
  });
});
