import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { JobNotFoundError, NonRetryableError, defineJob } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('dead letters', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('retryDeadLetter puts a dead job back in line with fresh attempts, and it can then succeed', async () => {
    h = world();
    let healthy = false;
    const runs: number[] = [];
    const job = defineJob({
      name: 'dl',
      retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } },
      work: ({ attempt }) => {
        runs.push(attempt);
        if (!healthy) throw new Error('downstream is down');
        return 'recovered';
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('dl', { k: 1 });
    assert.equal((await client.waitForResult(id, { timeoutMs: 5000 })).status, 'failed');
    assert.deepEqual(
      (await client.deadLetters()).map((d) => d.id),
      [id],
    );

    healthy = true;
    await client.retryDeadLetter(id);
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'done');
    assert.equal(rec.output, 'recovered');
    assert.equal(rec.error, null);
    assert.deepEqual(runs, [1, 2, 1], 'the redriven job starts again at attempt 1');
    assert.deepEqual(await client.deadLetters(), []);
    assert.ok((await client.events(id)).some((e) => e.type === 'redriven'));
    assert.ok(
      (await h.indexScore('done', id)) !== null,
      'now finished, it is retained (and later deleted) like any done job',
    );
    assert.equal((await h.indexScore('failed', id)) ?? null, null);
  });

  it('refuses to redrive a job that is not a dead letter', async () => {
    h = world();
    const job = defineJob({ name: 'dl', work: () => 1 });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('dl', null);
    await assert.rejects(
      () => client.retryDeadLetter(id),
      (err: any) => err instanceof JobNotFoundError && err.jobId === id,
    );
    await assert.rejects(() => client.retryDeadLetter('01ARZ3NDEKTSV4RRFFQ69G5FAV'), JobNotFoundError);
    assert.equal((await client.get(id))?.status, 'queued');
  });

  it('purgeDeadLetters empties only the dead-letter set', async () => {
    h = world();
    const job = defineJob({
      name: 'dl',
      work: ({ input }: { input: string }) => {
        if (input === 'bad') throw new NonRetryableError('bad');
        return input;
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const ids = await client.enqueueMany([
      { machine: 'dl', input: 'bad' },
      { machine: 'dl', input: 'bad' },
      { machine: 'dl', input: 'good' },
    ]);
    for (const id of ids) await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal((await client.deadLetters({ limit: 1 })).length, 1, 'limit applies');
    assert.equal(await client.purgeDeadLetters(), 2);
    assert.equal(await client.purgeDeadLetters(), 0);
    assert.equal((await client.get(ids[2]))?.status, 'done');
  });
  it('purgeDeadLetter purges one dead letter only, and says false for a job that is not one', async () => {
    h = world();
    const job = defineJob({
      name: 'dl',
      work: ({ input }: { input: string }) => {
        if (input === 'bad') throw new NonRetryableError('bad');
        return input;
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const ids = await client.enqueueMany([
      { machine: 'dl', input: 'bad' },
      { machine: 'dl', input: 'bad' },
      { machine: 'dl', input: 'good' },
    ]);
    for (const id of ids) await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(await client.purgeDeadLetter(ids[0]), true);
    assert.deepEqual(
      (await client.deadLetters()).map((d) => d.id),
      [ids[1]],
    );
    assert.ok(await h.expires(ids[0]), 'the purged record expires');
    assert.equal(await client.purgeDeadLetter(ids[0]), false, 'a second purge finds nothing');
    assert.equal(await client.purgeDeadLetter(ids[2]), false, 'a done job is no dead letter');
    await assert.rejects(() => client.purgeDeadLetter('01ARZ3NDEKTSV4RRFFQ69G5FAV'), JobNotFoundError);
  });
});
