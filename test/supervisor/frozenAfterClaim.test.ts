// Chaos T3's miss, in one case: a worker process frozen (here: blocked) for 4 leases after it
// handled its claim's answer and before its step started. The claim came in time (STALE CLAIM
// lets it run); meanwhile its lease passed, the reaper requeued the job and another worker ran
// it past that step. Thawed, the frozen worker MUST NOT start the step (SURE LEASE,
// ActiveJob.leaseReady): it waits for a heartbeat, which finds the lease lost.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Supervisor } from '../../src/index.js';
import { fixtureEnv, spawnFixture, killFixture } from '../support/spawnFixture.js';
import { Harness } from '../support/harness.js';
import { startRedis } from '../support/redis.js';
import { FROZEN_LEASE_MS, frozenFlow } from '../fixtures/frozenAfterClaimJobs.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a worker frozen between its claim and its step', () => {
  for (const compile of [true, false]) {
    it(`does not start the step once thawed (${compile ? 'compiled' : 'XState'} runtime): the job ran on the other worker`, async () => {
      const redis = await startRedis();
      const h = new Harness(redis);
      const w = spawnFixture('frozenAfterClaim.ts', {
        ...fixtureEnv(redis, h.prefix),
        COMPILE: compile ? '1' : '0',
      });
      const ran: string[] = [];
      const flow = frozenFlow(
        compile,
        () => {},
        (id) => ran.push(id),
      );
      const other = new Supervisor({
        store: h.store,
        jobs: [flow],
        leaseMs: FROZEN_LEASE_MS,
        heartbeatMs: FROZEN_LEASE_MS / 4,
        reaperIntervalMs: 100,
      });
      const client = new Client({ store: h.store, jobs: [flow] });
      try {
        await w.ready;
        const id = await client.enqueue('frozenFlow', {});
        await w.printed('FROZEN');
        await other.start();
        const done = await client.waitForResult(id, { timeoutMs: 10_000 });
        assert.equal(done.status, 'done');
        assert.deepEqual(ran, [id], 'the other worker ran step a');
        await w.printed('THAWED');
        // A step started without a sure lease starts at once after the thaw.
        await sleep(2 * FROZEN_LEASE_MS);
        assert.deepEqual([...w.started], [], 'the thawed worker started no step');
      } finally {
        killFixture(w.child);
        await other.stop();
        client.close();
        await h.close();
        await redis.stop();
      }
    });
  }
});
