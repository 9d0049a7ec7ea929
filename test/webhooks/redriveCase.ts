// One case both stores must pass (delivery.test.ts on Redis, memoryDelivery.test.ts on a
// MemoryStore): a dead letter retried after its final hook is followed again, and its new
// run's end is told too.

import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import { eventually } from '../support/redis.js';
import type { StoreWorld } from '../support/storeWorld.js';
import type { Receiver } from './receiver.js';

const FAST_HOOKS = { retryDelayMs: 100, maxDelayMs: 400, idleCheckMs: 200 };

export async function redrivenDeadLetterIsToldAgain(world: StoreWorld<Store>, rx: Receiver): Promise<void> {
  let runs = 0;
  const once = defineJob({
    name: 'failsOnce',
    retry: { maxAttempts: 1 },
    work: () => {
      if (++runs === 1) throw new Error('the first run fails');
      return 'second run';
    },
  });
  await world.started({ jobs: [once], webhooks: FAST_HOOKS, webhookAllowHosts: ['127.0.0.1'] });
  const client = world.client({ jobs: [once] });
  const id = await client.enqueue('failsOnce', {}, { webhook: { url: rx.url('/final') } });
  const told = () =>
    rx.at('/final').map((r) => (JSON.parse(r.body) as { data: { status: string } }).data.status);
  await eventually(() => told().length === 1, 10_000);
  assert.deepEqual(told(), ['failed']);
  await client.retryDeadLetter(id);
  await eventually(() => told().length === 2, 10_000);
  assert.deepEqual(told(), ['failed', 'done'], 'the new run’s end is told too');
}
