import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, type Priority } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('priorities', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('claims strictly critical before high before normal before low, FIFO within a priority', async () => {
    h = world();
    const order: string[] = [];
    const job = defineJob({ name: 'p', work: ({ input }: { input: string }) => void order.push(input) });
    const client = h.client({ jobs: [job] });
    // Interleave priorities so that enqueue order alone would give the wrong answer.
    const plan: Priority[] = [
      'low',
      'normal',
      'high',
      'critical',
      'low',
      'critical',
      'normal',
      'high',
      'low',
      'critical',
      'normal',
      'high',
    ];
    const counters: Record<string, number> = {};
    const ids: string[] = [];
    for (const p of plan) {
      counters[p] = (counters[p] ?? 0) + 1;
      ids.push(await client.enqueue('p', `${p}-${counters[p]}`, { priority: p }));
    }
    await h.started({ jobs: [job], concurrency: 1 });
    await eventually(() => order.length === plan.length);
    assert.deepEqual(order, [
      'critical-1',
      'critical-2',
      'critical-3',
      'high-1',
      'high-2',
      'high-3',
      'normal-1',
      'normal-2',
      'normal-3',
      'low-1',
      'low-2',
      'low-3',
    ]);
    const rec = await client.get(ids[3]!);
    assert.equal(rec?.priority, 'critical');
  });

  it('puts a job that comes due after a delay into its own priority band', async () => {
    h = world();
    const order: string[] = [];
    const job = defineJob({ name: 'p', work: ({ input }: { input: string }) => void order.push(input) });
    const client = h.client({ jobs: [job] });
    const delayed = await client.enqueue('p', 'critical-delayed', { priority: 'critical', delayMs: 150 });
    await client.enqueue('p', 'low-1', { priority: 'low' });
    await client.enqueue('p', 'normal-1');
    await eventually(async () => (await h.indexScore('delayed', delayed)) !== null);
    await new Promise((r) => setTimeout(r, 250));
    await h.started({ jobs: [job], concurrency: 1 });
    await eventually(() => order.length === 3);
    assert.deepEqual(order, ['critical-delayed', 'normal-1', 'low-1']);
  });
});
