// Parents and children on different shards of a private 3-master Redis Cluster: a fan-in whose
// children run on two other masters (each child's outcome travels through its queue's outbox to
// the parent's slot), and the cancel of a running tree spanning three shards (each running child
// is told over its own queue's control channel, on its own master).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { defineJob, definePipeline, fanOut } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { clusterSuite } from '../support/redisCluster.js';

/** A parent on its queue fanning out one child to each of `kidQueues`, collecting their outputs. */
function parentOf(kidMachine: string, kidQueues: string[]) {
  const machine = setup({ types: { input: {} as { n: number } }, actors: { fanOut } }).createMachine({
    id: 'tree',
    initial: 'fanning',
    context: ({ input }) => ({ n: input.n, out: [] as unknown[] }),
    output: ({ context }) => context.out,
    states: {
      fanning: {
        invoke: {
          id: 'kids',
          src: 'fanOut',
          input: ({ context }) => ({
            jobs: kidQueues.map((queue, i) => ({ machine: kidMachine, input: context.n + i, queue })),
          }),
          onDone: { target: 'end', actions: assign({ out: ({ event }) => event.output }) },
        },
      },
      end: { type: 'final' },
    },
  });
  return definePipeline({ name: `tree-${kidMachine}`, machine });
}

describe('parents and children on different shards', () => {
  const suite = clusterSuite();

  it("collects the outputs of children on two other masters into the parent's fan-in", async () => {
    const { queues } = suite;
    const h = suite.harness();
    const [pq, ...kidQueues] = queues as [string, string, string];
    const kid = defineJob({ name: 'double', work: async ({ input }: { input: number }) => input * 2 });
    const parent = parentOf('double', kidQueues);
    const jobs = [kid, parent];
    for (const queue of queues) await h.started({ jobs, queue });
    const client = h.client({ jobs, queue: pq });
    const ids = await Promise.all([1, 10, 100].map((n) => client.enqueue(parent.name, { n })));
    for (const [i, id] of ids.entries()) {
      const done = await client.waitForResult(id, { timeoutMs: 15_000 });
      const n = [1, 10, 100][i]!;
      assert.equal(done.status, 'done');
      assert.deepEqual(done.output, [n * 2, (n + 1) * 2]);
    }
  });

  it('cancels a running tree spanning three shards, each child told on its own master', async () => {
    const { cluster, queues } = suite;
    const h = suite.harness();
    const [pq, ...kidQueues] = queues as [string, string, string];
    const running = new Set<string>();
    const kid = defineJob({
      name: 'hang',
      timeoutMs: 60_000,
      work: ({ signal, jobId }) =>
        new Promise((_, reject) => {
          running.add(jobId);
          signal.addEventListener('abort', () => reject(new Error(String(signal.reason))));
        }),
    });
    const parent = parentOf('hang', kidQueues);
    const jobs = [kid, parent];
    // Heartbeats far away: only the control messages can stop the running children in time.
    for (const queue of queues) await h.started({ jobs, queue, heartbeatMs: 60_000, leaseMs: 120_000 });
    const client = h.client({ jobs, queue: pq });
    const id = await client.enqueue(parent.name, { n: 0 });
    await eventually(() => running.size === 2, 10_000);
    const kids = await Promise.all(kidQueues.map((q) => h.store.childIds(id, q, 0, 10)));
    assert.deepEqual(
      kids.map((k) => k.length),
      [1, 1],
      'one child on each of the other two queues',
    );

    assert.equal(await client.cancel(id), true);
    assert.equal((await client.get(id))?.status, 'cancelled');
    for (const [i, q] of kidQueues.entries()) {
      const child = await client.waitForResult(kids[i]![0]!, { queue: q, timeoutMs: 10_000 });
      assert.equal(child.status, 'cancelled', `the child on ${q} (${await cluster.ownerOf(`{${q}}`)})`);
    }
  });
});
