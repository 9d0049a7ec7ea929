// MemoryStore and RedisStore side by side: seeded random sequences of Store calls (enqueues with
// priorities, delays and idempotency keys; claims; commits of every kind, with their own, stale
// or foreign lease tokens; heartbeats; leases passing and the reaper; cancels; sends with
// repeated event ids; dead-letter redrives and purges; fan-outs, fan-in and the outbox) run on
// both, and after every step each call's answer, each job's record, audit log and inbox, and
// every queue's counts, dead letters and broken set must be equal; at the end, the event
// streams and the listings too. Time is kept unambiguous: delays and wake times are 0, in
// the past, or far off, and a lease meant to pass is waited out well past its end.
//
// Left out on purpose: a park's inbox position past the end of the job's inbox (no runtime
// writes one). RedisStore keeps such a position when the job then fails (it drops the position
// only with an inbox list), MemoryStore drops it.
//
// A failure names its seed and step; replay one with DIFF_SEED=<seed> (DIFF_STEPS for length,
// DIFF_SEEDS for how many sequences).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';
import { RedisStore } from '../../src/store/redis/RedisStore.js';
import type { Store } from '../../src/store/types.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { listings, observe } from './differential/observe.js';
import { Random } from './differential/random.js';
import { Model, QUEUES, nextStep, type Side } from './differential/steps.js';

/** DIFF_SEED=<n> replays one sequence; DIFF_SEEDS=<count> runs more (from 1). */
const SEEDS = process.env.DIFF_SEED
  ? [Number(process.env.DIFF_SEED)]
  : Array.from({ length: Number(process.env.DIFF_SEEDS ?? 20) }, (_, i) => i + 1);
const STEPS = Number(process.env.DIFF_STEPS ?? 200);

const side = (store: Store): Side => ({ store, tokens: new Map(), stale: new Map() });

/** The stream's events per job, in order (cursors and times are each backend's own). */
async function eventsOf(store: Store): Promise<unknown> {
  const out: Record<string, string[]> = {};
  for (const q of QUEUES) {
    const events = await store.readEvents(q, '0-0', 0, 100_000);
    for (const e of events) (out[`${q} ${e.jobId}`] ??= []).push(`${e.type}:${e.status ?? ''}`);
  }
  return out;
}

describe('MemoryStore and RedisStore answer every sequence of calls alike', { concurrency: 4 }, () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  for (const seed of SEEDS) {
    it(`seed ${seed}: ${STEPS} random steps`, async () => {
      const mem = side(new MemoryStore());
      const red = side(new RedisStore({ url: redis.url, prefix: uniquePrefix('diff') }));
      const r = new Random(seed);
      const model = new Model();
      const trail: string[] = [];
      const where = (i: number) =>
        `seed ${seed} (replay: DIFF_SEED=${seed}), step ${i}; the steps before it:\n  ${trail.slice(-12).join('\n  ')}`;
      try {
        for (let i = 1; i <= STEPS; i++) {
          const step = nextStep(r, model);
          trail.push(`${i}: ${step.name}`);
          const onMemory = await step.run(mem);
          const onRedis = await step.run(red);
          assert.deepEqual(onMemory, onRedis, `the answers differ at ${where(i)}`);
          const [seenMemory, seenRedis] = await Promise.all([
            observe(mem.store, model.jobs, QUEUES),
            observe(red.store, model.jobs, QUEUES),
          ]);
          assert.deepEqual(seenMemory, seenRedis, `the stores differ after ${where(i)}`);
          for (const [id, seen] of Object.entries(seenRedis.jobs)) {
            model.status.set(id, seen.record?.status ?? null);
            model.attempts.set(id, seen.record?.attempts ?? 0);
            model.inbox.set(id, seen.inbox ?? 0);
          }
        }
        assert.deepEqual(
          await eventsOf(mem.store),
          await eventsOf(red.store),
          `the event streams differ, seed ${seed}`,
        );
        assert.deepEqual(
          await listings(mem.store, QUEUES),
          await listings(red.store, QUEUES),
          `the listings differ, seed ${seed}`,
        );
      } finally {
        await Promise.all([mem.store.close(), red.store.close()]);
      }
    });
  }
});
