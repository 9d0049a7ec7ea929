// The populated-queue partitioning scenario (src/store/partitionPopulated.ts), played on any
// store: one node and MemoryStore (test/store/partitionPopulated.test.ts) and a 3-master cluster
// (test/cluster/queuesOverShards.test.ts). A queue holding a running job, queued, delayed, parked
// and idempotent jobs is partitioned online; then every job runs exactly once, the ids handed out
// before reach their jobs, and the running job finishes where it was.

import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { defineJob, definePipeline } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import { partitionPopulated } from '../../src/store/partitionPopulated.js';
import { locateJob } from '../../src/client/locateJob.js';
import { eventually } from './redis.js';
import type { StoreWorld } from './storeWorld.js';

export async function playPartitionDrain(h: StoreWorld<Store>, queue = 'q'): Promise<void> {
  const ran: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const rec = defineJob({
    name: 'rec',
    work: async ({ input }: { input: string }) => {
      if (input === 'hold') await held;
      ran.push(input);
      return input;
    },
  });
  const gate = definePipeline({
    name: 'gate',
    machine: setup({}).createMachine({
      id: 'gate',
      initial: 'waiting',
      states: { waiting: { on: { GO: 'end' } }, end: { type: 'final' } },
      output: () => 'through',
    }),
  });
  const jobs = [rec, gate];
  const before = h.client({ jobs, queue });
  const supervisor = await h.started({ jobs, queues: [queue], concurrency: 1 });
  const hold = await before.enqueue('rec', 'hold');
  await eventually(async () => (await before.get(hold))?.status === 'working');
  // Behind the running job (one slot): queued, delayed, a pipeline, an idempotent one, one to cancel.
  const old = await Promise.all(['o0', 'o1', 'o2', 'o3'].map((n) => before.enqueue('rec', n)));
  const delayed = await before.enqueue('rec', 'od', { delayMs: 200 });
  const gated = await before.enqueue('gate', null);
  const keyed = await before.enqueue('rec', 'ok', { idempotencyKey: 'k1' });
  const doomed = await before.enqueue('rec', 'oc');

  const report = await partitionPopulated(h.store, queue, 3, { dryRun: false });
  assert.deepEqual(
    [report.from, report.to, report.switched, report.idempotencyKeys, report.drained],
    [1, 3, true, 1, false],
  );
  assert.equal(report.left.active, 1);
  assert.equal(report.left.queued + report.left.delayed, 8);

  // A client that reads the count now: new work goes to the partitions...
  const after = h.client({ jobs, queue });
  const fresh = await Promise.all(['n0', 'n1', 'n2', 'n3', 'n4', 'n5'].map((n) => after.enqueue('rec', n)));
  for (const id of fresh) assert.match(id, /^[0-2]~/);
  // ...an enqueue repeated with a key used before meets the job made before...
  assert.equal(await after.enqueue('rec', 'ok', { idempotencyKey: 'k1' }), keyed);
  // ...and the ids handed out before reach their jobs in the queue's own name.
  for (const id of [...old, delayed, gated, keyed, doomed]) {
    assert.equal((await after.get(id))?.queue, queue);
    assert.equal(await locateJob(h.store, queue, id, 3), queue);
  }
  for (const id of fresh) assert.equal(await locateJob(h.store, queue, id, 3), (await after.get(id))?.queue);
  const cancelled = await h.store.cancel(doomed, await locateJob(h.store, queue, doomed, 3));
  assert.equal(cancelled.result, 'cancelled');

  // The running job finishes where it is; the supervisor started before the switch drains the
  // own name, and serves the partitions once restarted (it reads the count at start).
  release();
  await eventually(() => ['hold', 'o0', 'o1', 'o2', 'o3', 'od', 'ok'].every((n) => ran.includes(n)), 15_000);
  assert.equal((await after.get(hold))?.status, 'done');
  assert.deepEqual(
    ran.filter((n) => n.startsWith('n')),
    [],
  );
  await supervisor.stop({ graceMs: 1000 });
  await supervisor.start();
  await after.send(gated, { type: 'GO' });
  await eventually(() => fresh.length + 7 === ran.length, 15_000);
  // (get finds it; Client.waitForResult does once the Client locates through locateJob.)
  await eventually(async () => (await after.get(gated))?.status === 'done', 15_000);
  assert.equal((await after.get(gated))?.output, 'through');
  // Every job ran exactly once; the cancelled one never.
  assert.deepEqual([...ran].sort(), [
    'hold',
    'n0',
    'n1',
    'n2',
    'n3',
    'n4',
    'n5',
    'o0',
    'o1',
    'o2',
    'o3',
    'od',
    'ok',
  ]);

  const again = await partitionPopulated(h.store, queue, 3, { dryRun: false });
  assert.deepEqual([again.from, again.switched, again.drained], [3, false, true]);
}
