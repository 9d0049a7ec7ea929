// Partitioning a queue that holds jobs (src/store/partitionPopulated.ts, `machinist migrate-store
// --partition`): online, on either store; the refusals; and the CLI step on a populated store.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, PartitionsInUseError } from '../../src/index.js';
import { partitionPopulated } from '../../src/store/partitionPopulated.js';
import { partitionQueue } from '../../src/store/partitions.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { playPartitionDrain } from '../support/partitionDrain.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { runCli } from '../support/cli.js';

describeOnEachStore('partitioning a populated queue', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());
  const noop = defineJob({ name: 'noop', work: () => null });

  it('partitions it at once for new work while its jobs drain from its own name, none lost or run twice', async () => {
    h = world();
    await playPartitionDrain(h);
  });

  it('writes nothing on a dry run, and refuses while a partition holds jobs', async () => {
    h = world();
    const client = h.client({ jobs: [noop], queue: 'q' });
    await client.enqueue('noop', null);
    const dry = await partitionPopulated(h.store, 'q', 4, { dryRun: true });
    assert.deepEqual([dry.switched, dry.idempotencyKeys, dry.left.queued], [false, null, 1]);
    assert.equal(await h.store.partitions('q'), 1);
    // A job in a would-be partition (a tool wrote one there): those ids would stop naming it.
    await h.store.enqueue(partitionQueue('q', 2), [
      { id: 'x', machine: 'noop', version: 1, input: 'null', band: 2, delayMs: 0, maxAttempts: 1 },
    ]);
    await assert.rejects(partitionPopulated(h.store, 'q', 4, { dryRun: true }), PartitionsInUseError);
    await assert.rejects(partitionPopulated(h.store, 'q', 4, { dryRun: false }), (err: unknown) => {
      assert.ok(err instanceof PartitionsInUseError);
      assert.equal(err.queue, 'q');
      return true;
    });
    assert.equal(await h.store.partitions('q'), 1);
    await assert.rejects(partitionPopulated(h.store, 'q', 1, { dryRun: false }), /from 2 to 1024/);
    await assert.rejects(partitionPopulated(h.store, 'q#1', 2, { dryRun: false }), /names a partition/);
  });

  it("cancels, waits for and reads the log of a job enqueued before, by the queue's name", async () => {
    h = world();
    const client = h.client({ jobs: [noop], queue: 'q' });
    const waited = await client.enqueue('noop', null);
    const doomed = await client.enqueue('noop', null);
    await partitionPopulated(h.store, 'q', 3, { dryRun: false });
    const after = h.client({ jobs: [noop], queue: 'q' });
    assert.equal(await after.cancel(doomed, { queue: 'q' }), true);
    assert.ok((await after.events(doomed, { queue: 'q' })).length > 0);
    await h.started({ jobs: [noop], queues: ['q'] });
    assert.equal((await after.waitForResult(waited, { queue: 'q', timeoutMs: 10_000 })).status, 'done');
  });
});

describe('machinist migrate-store --partition', () => {
  let redis: TestRedis;
  let h: Harness | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h?.close());
  const noop = defineJob({ name: 'noop', work: () => null });
  const cli = (...args: string[]) =>
    runCli(['--redis', redis.url, '--prefix', h!.prefix, 'migrate-store', ...args]);

  it('partitions a populated store and reports what its own name still holds', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [noop], queue: 'payments' });
    for (let i = 0; i < 5; i++) await client.enqueue('noop', null, { idempotencyKey: `k${i}` });
    // One CLI run (a process start costs seconds): the dry run, the refusals and the rerun's
    // report are proved on the function above.
    const run = await cli('--partition', 'payments', '--partitions', '4');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /queue 'payments': partitioned 1 -> 4; idempotency keys handed over: 5\n/);
    assert.match(run.stdout, /its own name still holds: queued 5, delayed 0, active 0, waiting 0/);
    assert.match(run.stdout, /draining.*\n.*restart the supervisors serving 'payments'/);
    assert.equal(await h.store.partitions('payments'), 4);
    await h.started({ jobs: [noop], queues: ['payments'] });
    await eventually(async () => (await h!.store.counts('payments')).done === 5);
    const again = await partitionPopulated(h.store, 'payments', 4, { dryRun: false });
    assert.deepEqual([again.switched, again.drained, again.left.done], [false, true, 5]);
  });
});
