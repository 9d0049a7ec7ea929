// A pipeline's audit log names every state the job settled in, even when several were passed
// through between two checkpoint writes (fast steps coalesce into one write).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { definePipeline, step } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

const fastSteps = setup({
  actors: { instant: step(async () => 'ok') },
}).createMachine({
  initial: 'a',
  states: {
    a: { invoke: { id: 'a', src: 'instant', onDone: 'b' } },
    b: { invoke: { id: 'b', src: 'instant', onDone: 'c' } },
    c: { invoke: { id: 'c', src: 'instant', onDone: 'end' } },
    end: { type: 'final' },
  },
});

const fastThenFail = setup({
  actors: { instant: step(async () => 'ok'), boom: step(() => Promise.reject(new Error('boom'))) },
}).createMachine({
  initial: 'a',
  states: {
    a: { invoke: { id: 'a', src: 'instant', onDone: 'b' } },
    b: { invoke: { id: 'b', src: 'instant', onDone: 'c' } },
    c: { invoke: { id: 'c', src: 'boom', onDone: 'end' } },
    end: { type: 'final' },
  },
});

describe('pipeline audit log', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  for (const compile of [true, false]) {
    it(`logs every state a fast pipeline passed through (${compile ? 'compiled' : 'XState runtime'})`, async () => {
      h = new Harness(redis);
      const jobs = [definePipeline({ name: 'fast', machine: fastSteps, compile })];
      await h.started({ jobs });
      const client = h.client({ jobs });
      const id = await client.enqueue('fast', null);
      assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).status, 'done');
      const states = (await client.events(id)).filter((e) => e.type === 'state').map((e) => e.state);
      assert.deepEqual(states, ['a', 'b', 'c', 'end']);
    });

    it(`logs the states a fast pipeline passed through before it failed (${compile ? 'compiled' : 'XState runtime'})`, async () => {
      h = new Harness(redis);
      const jobs = [
        definePipeline({ name: 'fails', machine: fastThenFail, compile, retry: { maxAttempts: 1 } }),
      ];
      await h.started({ jobs });
      const client = h.client({ jobs });
      const id = await client.enqueue('fails', null);
      assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).status, 'failed');
      const log = await client.events(id);
      assert.deepEqual(
        log.filter((e) => e.type === 'state').map((e) => e.state),
        ['a', 'b', 'c'],
      );
      assert.equal(log.at(-1)?.type, 'failed');
    });
  }
});
