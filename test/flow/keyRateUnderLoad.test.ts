// The key throttle with real supervisors on both stores (docs/flow-control.md): two supervisors
// together start one key's jobs no faster than its rate, the keys run side by side, and the idle
// supervisors wake when a key's rate allows (the claim's next-due time), not at a poll.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { eventually } from '../support/redis.js';

const T = 100;
const PER_KEY = 6;

describeOnEachStore('key throttle under load', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('starts each key at its rate across two supervisors, keys side by side', async () => {
    h = world();
    const starts = new Map<string, number[]>();
    const job = defineJob({
      name: 'kr',
      work: ({ input }: { input: { key: string } }) => {
        const s = starts.get(input.key) ?? [];
        s.push(Date.now());
        starts.set(input.key, s);
        return 1;
      },
    });
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { keyRateLimit: { limit: 1, perMs: T } });
    const keys = ['a', 'b', 'c'];
    await client.enqueueMany(
      Array.from({ length: PER_KEY * keys.length }, (_, i) => ({
        machine: 'kr',
        input: { key: keys[i % keys.length]! },
        options: { concurrencyKey: keys[i % keys.length]! },
      })),
    );
    const t0 = Date.now();
    await h.started({ jobs: [job], concurrency: 8 });
    await h.started({ jobs: [job], concurrency: 8 });
    const done = () => [...starts.values()].reduce((n, s) => n + s.length, 0) === PER_KEY * keys.length;
    await eventually(done, 20_000);
    const elapsed = Date.now() - t0;
    for (const key of keys) {
      const s = starts.get(key)!;
      // PER_KEY starts at one per T: the first and the last are at least (PER_KEY - 1) T apart
      // (less a little: a start is seen when the work begins, after its claim).
      const span = s[s.length - 1]! - s[0]!;
      assert.ok(span >= (PER_KEY - 1) * T - 40, `key ${key}: ${PER_KEY} starts in ${span} ms`);
    }
    // Side by side, and woken at each key's next allowed start: about (PER_KEY - 1) T in all,
    // far from the keys one after another (3x) or a poll (idleWaitMs, 5 s by default).
    assert.ok(elapsed < (PER_KEY - 1) * T + 900, `all took ${elapsed} ms`);
  });
});
