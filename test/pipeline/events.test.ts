// Events sent to pipeline jobs (client.send): why one is ignored, delivery to a child machine
// (`to`), and an event kept until a state accepts it (`until: 'accepted'`).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { and, assign, setup } from 'xstate';
import { definePipeline } from '../../src/index.js';
import type { AuditEntry } from '../../src/store/types.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

/** Parks in `waiting` until a manager approves (guarded), then ends. */
const approvals = setup({
  types: { events: {} as { type: 'APPROVE'; role: string } | { type: 'REJECT' } },
  guards: {
    isManager: ({ event }) => (event as { role?: string }).role === 'manager',
    notFriday: () => true,
  },
}).createMachine({
  initial: 'waiting',
  context: { by: '' },
  states: {
    waiting: {
      on: {
        APPROVE: [
          { guard: 'isManager', target: 'approved', actions: assign({ by: 'manager' }) },
          {
            guard: and(['notFriday', ({ event }) => (event as { role?: string }).role === 'lead']),
            target: 'approved',
          },
        ],
      },
    },
    approved: { type: 'final' },
  },
  output: ({ context }) => context,
});

describe('pipeline events', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const ignored = async (id: string, n: number): Promise<AuditEntry[]> =>
    (await eventually(async () => {
      const found = (await h.store.getLog(id)).filter((e) => e.type === 'event-ignored');
      return found.length >= n ? found : null;
    }))!;

  it('logs why an event was ignored: no transition for it, or the guards that returned false', async () => {
    h = new Harness(redis);
    const jobs = [definePipeline({ name: 'approvals', machine: approvals })];
    await h.started({ jobs });
    const client = h.client({ jobs });
    const id = await client.enqueue('approvals', null);
    await eventually(async () => (await client.get(id))?.status === 'waiting');
    await client.send(id, { type: 'REJECT' });
    await client.send(id, { type: 'APPROVE', role: 'intern' });
    const [noTransition, guarded] = await ignored(id, 2);
    assert.equal(noTransition!.event, 'REJECT');
    assert.equal(noTransition!.reason, "no transition for 'REJECT' in the active states");
    assert.equal(guarded!.event, 'APPROVE');
    assert.deepEqual(guarded!.guards, ['isManager', 'and(notFriday, inline)']);
    assert.equal(guarded!.reason, "guards returned false: 'isManager', 'and(notFriday, inline)'");
    await client.send(id, { type: 'APPROVE', role: 'manager' });
    assert.deepEqual((await client.waitForResult(id, { timeoutMs: 5000 })).output, { by: 'manager' });
  });
});
