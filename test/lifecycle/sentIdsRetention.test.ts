// The ids of a job's sent events outlive its inbox once it has ended (a send repeated then is
// answered as delivered: test/client/sendRepeatAfterEnd.test.ts), so they MUST go with its
// record on every path a record goes by: the sweep of a finished job (recordKeys.lua) and the
// expiry of a purged dead letter (purgeDead-3.lua), which expires the record's keys rather than
// deleting them.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fromPromise, setup } from 'xstate';
import { NonRetryableError, definePipeline } from '../../src/index.js';
import { eventually, sleep, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

// The shortest retention the supervisor takes: its leaseMs 1000 + reaperIntervalMs 100.
const TTL = 1100;

const onGo = (fail: boolean) =>
  definePipeline({
    name: fail ? 'failsOnGo' : 'endsOnGo',
    retry: { maxAttempts: 1 },
    machine: setup({
      types: { events: {} as { type: 'GO' } },
      actors: {
        act: fromPromise(async () => {
          if (fail) throw new NonRetryableError('no');
          return 1;
        }),
      },
    }).createMachine({
      initial: 'waiting',
      states: {
        waiting: { on: { GO: 'acting' } },
        acting: { invoke: { id: 'act', src: 'act', onDone: 'end' } },
        end: { type: 'final' },
      },
    }),
  });

describe("a finished job's sent-event ids", () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  for (const fail of [false, true])
    it(`are kept after the job ${fail ? 'failed' : 'ended done'}, and go with its record ${fail ? 'when the dead letter is purged' : 'at its retention'}`, async () => {
      h = new Harness(redis, { finishedTtlMs: TTL });
      const job = onGo(fail);
      const client = h.client({ jobs: [job] });
      await h.started({ jobs: [job], reaperIntervalMs: 100 });
      const id = await client.enqueue(job.name, {});
      await client.send(id, { type: 'GO' }, { eventId: 'go-1' });
      await eventually(async () => (await client.get(id))?.status === (fail ? 'failed' : 'done'));
      const ids = h.key(`inboxids:${id}`);
      assert.equal(await h.raw.exists(ids), 1, 'kept while the record is');
      assert.equal(await h.raw.exists(h.key(`inbox:${id}`)), 0, 'the inbox itself went at the end');
      await client.send(id, { type: 'GO' }, { eventId: 'go-1' });
      if (fail) await client.purgeDeadLetters();
      await sleep(TTL + 50);
      await eventually(async () => (await h.raw.exists(h.key(`job:${id}`))) === 0);
      assert.equal(await h.raw.exists(ids), 0, 'its sent-event ids went with it');
    });
});
