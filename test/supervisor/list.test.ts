import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  NonRetryableError,
  defineJob,
  type Client,
  type JobRecord,
  type JobStatus,
} from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

async function all(
  client: Client,
  query: { status?: JobStatus; machine?: string; queue?: string },
  limit: number,
): Promise<{ pages: number; jobs: JobRecord[] }> {
  let cursor: string | null | undefined;
  const jobs: JobRecord[] = [];
  let pages = 0;
  do {
    const page = await client.list({ ...query, limit, cursor: cursor ?? undefined });
    assert.ok(page.jobs.length <= limit);
    jobs.push(...page.jobs);
    cursor = page.cursor;
    pages++;
    assert.ok(pages < 100, 'the cursor ends');
  } while (cursor);
  return { pages, jobs };
}

describeOnEachStore('list', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('pages through jobs of a status with a cursor, each exactly once, in queue order', async () => {
    h = world();
    const a = defineJob({ name: 'a', work: () => 1 });
    const client = h.client({ jobs: [a] });
    const ids = await client.enqueueMany(Array.from({ length: 25 }, (_, i) => ({ machine: 'a', input: i })));
    const { pages, jobs } = await all(client, { status: 'queued' }, 10);
    assert.equal(pages, 3);
    assert.deepEqual(
      jobs.map((j) => j.id),
      ids,
    );
    assert.ok(jobs.every((j) => j.status === 'queued' && j.machine === 'a'));
    const first = await client.list({ status: 'queued', limit: 10 });
    assert.equal(first.jobs.length, 10);
    assert.ok(first.cursor);
  });

  it('filters by machine and by status', async () => {
    h = world();
    const a = defineJob({ name: 'a', work: () => 1 });
    const b = defineJob({
      name: 'b',
      work: ({ input }: { input: number }) => {
        if (input % 2) throw new NonRetryableError('odd');
        return input;
      },
    });
    const client = h.client({ jobs: [a, b] });
    const items = Array.from({ length: 12 }, (_, i) => ({ machine: i % 3 === 0 ? 'a' : 'b', input: i }));
    const ids = await client.enqueueMany(items);
    const idsOf = (m: string) => ids.filter((_, i) => items[i]!.machine === m);

    const onlyA = await all(client, { machine: 'a' }, 3);
    assert.deepEqual(onlyA.jobs.map((j) => j.id).sort(), idsOf('a').sort());
    const onlyB = await all(client, { machine: 'b', status: 'queued' }, 5);
    assert.deepEqual(onlyB.jobs.map((j) => j.id).sort(), idsOf('b').sort());

    // Run only 'b' jobs: some end done, some failed; 'a' jobs stay queued.
    await h.started({ jobs: [a, b], concurrency: 4 });
    for (const id of ids) await client.waitForResult(id, { timeoutMs: 5000 });
    const done = await all(client, { status: 'done', machine: 'b' }, 2);
    const failed = await all(client, { status: 'failed' }, 2);
    const bDone = ids.filter((_, i) => items[i]!.machine === 'b' && items[i]!.input % 2 === 0);
    const bFailed = ids.filter((_, i) => items[i]!.machine === 'b' && items[i]!.input % 2 === 1);
    assert.deepEqual(done.jobs.map((j) => j.id).sort(), bDone.sort());
    assert.deepEqual(failed.jobs.map((j) => j.id).sort(), bFailed.sort());
    assert.ok(failed.jobs.every((j) => j.status === 'failed'));
    const everything = await all(client, {}, 4);
    assert.deepEqual(everything.jobs.map((j) => j.id).sort(), [...ids].sort(), 'no status: every job once');
  });

  it('lists delayed jobs as queued, and lists per queue', async () => {
    h = world();
    const a = defineJob({ name: 'a', work: () => 1 });
    const client = h.client({ jobs: [a] });
    const now = await client.enqueue('a', 1);
    const later = await client.enqueue('a', 2, { delayMs: 60_000 });
    const elsewhere = await client.enqueue('a', 3, { queue: 'other' });
    const { jobs } = await all(client, { status: 'queued' }, 10);
    assert.deepEqual(
      jobs.map((j) => j.id),
      [now, later],
    );
    assert.ok(jobs[1]!.runAt! > Date.now());
    assert.deepEqual(
      (await all(client, { queue: 'other' }, 10)).jobs.map((j) => j.id),
      [elsewhere],
    );
    assert.equal((await client.get(elsewhere))?.queue, 'other');
  });
});
