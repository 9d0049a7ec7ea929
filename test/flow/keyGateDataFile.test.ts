// A MemoryStore's key gate and machine gates survive its data file (FlowState.toJSON/fromJSON):
// a paused key, the key throttle, a key's line and its GCRA state, a machine gate, its line and
// its running holder, a machine's throttle with its rate line and GCRA state are all there when
// a new store opens the file.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, defineJob } from '../../src/index.js';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';

const job = defineJob({ name: 'f', work: () => 1 });
const claim = { workerId: 'w1', max: 10, leaseMs: 60_000, loadMachines: [] };

describe("a MemoryStore's key gate across its data file", () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'f-keygate-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps paused keys, the key throttle, the lines and their state', async () => {
    const file = join(dir, 'jobs.json');
    const first = new MemoryStore({ dataFile: file });
    const c1 = new Client({ store: first, jobs: [job] });
    await c1.setQueueLimits('default', { keyRateLimit: { limit: 1, perMs: 60_000 } });
    await c1.setQueueLimits('other', { machines: { f: { concurrency: 1 } } });
    const o1 = await c1.enqueue('f', 'o1', { queue: 'other' });
    const o2 = await c1.enqueue('f', 'o2', { queue: 'other' });
    assert.deepEqual(
      (await first.commit('other', [], claim)).claimed.map((c) => c.id),
      [o1],
    );
    await c1.pauseKey('default', 'p');
    await c1.enqueue('f', 1, { concurrencyKey: 'p' });
    const r1 = await c1.enqueue('f', 2, { concurrencyKey: 'r' });
    const r2 = await c1.enqueue('f', 3, { concurrencyKey: 'r' });
    assert.deepEqual(
      (await first.commit('default', [], claim)).claimed.map((c) => c.id),
      [r1],
    );
    await first.close();

    const second = new MemoryStore({ dataFile: file });
    try {
      const c2 = new Client({ store: second, jobs: [job] });
      const v = await c2.queueLimits('default');
      assert.deepEqual(v.limits, { keyRateLimit: { limit: 1, perMs: 60_000, burst: 0 } });
      const lines = v.keys.map((k) => ({ key: k.key, waiting: k.waiting, paused: k.paused }));
      assert.deepEqual(lines, [
        { key: 'p', waiting: 1, paused: true },
        { key: 'r', waiting: 1, paused: undefined },
      ]);
      // Key r's rate was spent before the restart: r2 still waits, and the claim says until when.
      const r = await second.commit('default', [], claim);
      assert.equal(r.claimed.length, 0);
      assert.ok(r.nextDueAt !== null && r.nextDueAt > r.redisNow + 50_000, `due ${r.nextDueAt}`);
      // The machine gate, its line, and its running holder (rebuilt from the running job).
      const other = await c2.queueLimits('other');
      assert.deepEqual(other.gates, [{ gate: 'm:f', running: 1, waiting: 1 }]);
      assert.equal((await second.commit('other', [], claim)).claimed.length, 0, `${o2} waits for the slot`);
      await c2.resumeKey('default', 'p');
      assert.equal((await second.commit('default', [], claim)).claimed.length, 1);
      assert.equal((await second.counts('default')).queued, 1, `${r2} is queued, in its key's line`);
    } finally {
      await second.close();
    }
  });

  it("keeps a machine's throttle, its rate line and its GCRA state", async () => {
    const file = join(dir, 'machine-rate.json');
    const first = new MemoryStore({ dataFile: file });
    const c1 = new Client({ store: first, jobs: [job] });
    await c1.setQueueLimits('default', { machines: { f: { rateLimit: { limit: 1, perMs: 60_000 } } } });
    const f1 = await c1.enqueue('f', 1);
    const f2 = await c1.enqueue('f', 2);
    assert.deepEqual(
      (await first.commit('default', [], claim)).claimed.map((c) => c.id),
      [f1],
    );
    await first.close();

    const second = new MemoryStore({ dataFile: file });
    try {
      const c2 = new Client({ store: second, jobs: [job] });
      const v = await c2.queueLimits('default');
      assert.deepEqual(v.limits, { machineRateLimits: { f: { limit: 1, perMs: 60_000, burst: 0 } } });
      assert.deepEqual(v.gates, [{ gate: 'r:f', running: 0, waiting: 1 }]);
      // Machine f's rate was spent before the restart: f2 still waits, and the claim says until when.
      const r = await second.commit('default', [], claim);
      assert.equal(r.claimed.length, 0, `${f2} waits for its machine's rate`);
      assert.ok(r.nextDueAt !== null && r.nextDueAt > r.redisNow + 50_000, `due ${r.nextDueAt}`);
    } finally {
      await second.close();
    }
  });
});
