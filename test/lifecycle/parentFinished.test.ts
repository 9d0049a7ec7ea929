// A child claimed after its parent finished (done or failed) is awaited by nobody: it ends
// cancelled without running, as under a cancelled parent.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import type { NewJob } from '../../src/store/types.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('children of a finished parent', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  for (const [ending, op] of [
    ['done', { kind: 'done', output: '1', snapshot: '', log: ['{"type":"done"}'] }],
    ['failed', { kind: 'fail', error: '{"message":"x"}', log: ['{"type":"failed"}'] }],
  ] as [
    string,
    (
      | { kind: 'done'; output: string; snapshot: string; log: string[] }
      | { kind: 'fail'; error: string; log: string[] }
    ),
  ][]) {
    it(`ends cancelled, unrun, a queued child whose parent ended ${ending}`, async () => {
      h = new Harness(redis);
      let ran = 0;
      const job = defineJob({ name: 'j', work: () => void ran++ });
      const parentId = '01JPARENT00000000000000000';
      const base: Omit<NewJob, 'id'> = {
        machine: 'j',
        version: 1,
        input: 'null',
        band: 2,
        delayMs: 0,
        maxAttempts: 1,
      };
      await h.store.enqueue('default', [{ id: parentId, ...base }]);
      const token = (await h.claimAs())[0]!.token;
      await h.store.enqueue('default', [
        { id: `${parentId}.fan.0`, ...base, parentId, parentQueue: '', group: 'fan', index: 0 },
      ]);
      await h.store.commit('default', [{ ...op, id: parentId, token }]);
      assert.equal((await h.store.getJob(parentId))?.status, ending);
      await h.started({ jobs: [job] });
      const client = h.client({ jobs: [job] });
      const child = await client.waitForResult(`${parentId}.fan.0`, { timeoutMs: 5000 });
      assert.equal(child.status, 'cancelled');
      assert.equal(ran, 0);
      const log = await client.events(child.id);
      assert.ok(
        log.some((e) => e.type === 'cancelled' && e.reason === `parent ${ending}`),
        JSON.stringify(log),
      );
    });
  }
});
