// Concurrency limits with real supervisors on both stores (docs/flow-control.md): the running
// counts, sampled as each job starts, never pass `perKey` or `total`; and a key enqueued behind
// another key's backlog is not starved (decided by order of completion, not by time).

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { eventually } from '../support/redis.js';

const pause = () => new Promise((r) => setTimeout(r, 5));

describeOnEachStore('concurrency limits under load', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('never runs more than perKey of a key nor total of the queue, over two supervisors', async () => {
    h = world();
    const running = new Map<string, number>();
    let all = 0;
    const most = { key: 0, total: 0 };
    let finished = 0;
    const job = defineJob({
      name: 'lim',
      work: async ({ input }: { input: { key: string } }) => {
        const n = (running.get(input.key) ?? 0) + 1;
        running.set(input.key, n);
        all++;
        most.key = Math.max(most.key, n);
        most.total = Math.max(most.total, all);
        await pause();
        running.set(input.key, running.get(input.key)! - 1);
        all--;
        finished++;
        return 1;
      },
    });
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { perKey: 2, total: 5 } });
    const keys = ['a', 'b', 'c', 'd'];
    await client.enqueueMany(
      Array.from({ length: 80 }, (_, i) => ({
        machine: 'lim',
        input: { key: keys[i % 4]! },
        options: { concurrencyKey: keys[i % 4]! },
      })),
    );
    await h.started({ jobs: [job], concurrency: 8 });
    await h.started({ jobs: [job], concurrency: 8 });
    await eventually(() => finished === 80, 20_000);
    assert.ok(most.key <= 2, `a key ran ${most.key} at once`);
    assert.ok(most.total <= 5, `the queue ran ${most.total} at once`);
    assert.equal(most.total, 5, 'the total was reached (the limits bound, they did not stall)');
    await eventually(async () => (await client.queueLimits('default')).keys.length === 0);
  });

  it('a key enqueued behind another key’s backlog runs alongside it, not after it', async () => {
    h = world();
    const order: string[] = [];
    const job = defineJob({
      name: 'fair',
      work: async ({ input }: { input: { key: string } }) => {
        await pause();
        order.push(input.key);
        return 1;
      },
    });
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { perKey: 2, total: 4 } });
    const item = (key: string) => ({ machine: 'fair', input: { key }, options: { concurrencyKey: key } });
    await client.enqueueMany(Array.from({ length: 300 }, () => item('big')));
    await client.enqueueMany(Array.from({ length: 10 }, () => item('small')));
    await h.started({ jobs: [job], concurrency: 4 });
    await eventually(() => order.filter((k) => k === 'small').length === 10, 20_000);
    // Both keys ran 2 at a time: when the small key's 10 are done, the big key has done about
    // as many. FIFO alone would have run all 300 of the big key first.
    const bigBefore = order.length - 10;
    assert.ok(bigBefore <= 30, `the big key finished ${bigBefore} jobs before the small key's 10`);
  });
});
