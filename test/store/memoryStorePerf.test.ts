// A sanity check of MemoryStore's speed, not a timed assertion: 10,000 simple jobs through a
// Supervisor at concurrency 100 all end done; the rate is reported (t.diagnostic) for the record.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Client, Supervisor, defineJob } from '../../src/index.js';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';

it('runs 10,000 simple jobs at concurrency 100 to done, and reports jobs/s', async (t) => {
  const N = 10_000;
  const noop = defineJob({ name: 'noop', work: async ({ input }: { input: { i: number } }) => input.i });
  const store = new MemoryStore();
  const sup = new Supervisor({ store, jobs: [noop], concurrency: 100, logger: pino({ level: 'silent' }) });
  const client = new Client({ store, jobs: [noop] });
  await sup.start();
  try {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: N }, (_, i) => client.enqueue('noop', { i })));
    const enqueued = performance.now();
    const deadline = Date.now() + 120_000;
    while ((await store.counts('default')).done < N) {
      assert.ok(Date.now() < deadline, 'all jobs done within two minutes');
      await new Promise((r) => setTimeout(r, 10));
    }
    const end = performance.now();
    const counts = await store.counts('default');
    assert.deepEqual([counts.done, counts.failed, counts.queued, counts.active], [N, 0, 0, 0]);
    const rate = Math.round(N / ((end - enqueued) / 1000));
    t.diagnostic(
      `enqueue ${N}: ${Math.round(enqueued - t0)} ms; run: ${Math.round(end - enqueued)} ms = ${rate} jobs/s`,
    );
  } finally {
    await sup.stop({ graceMs: 0 });
    client.close();
    await store.close();
  }
});
