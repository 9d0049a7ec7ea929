// THE BOUNDED SCAN (src/store/search/searchPages.ts) on both stores: the cursor walks a set
// larger than one page without losing or repeating a match, each call stays inside its bound,
// field filters reach nested input and compare numbers as numbers, and a bad query is refused
// naming its fault.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, ValidationError } from '../../src/index.js';
import { hasJobSearch, type JobRecord, type SearchQuery } from '../../src/store/types.js';
import { parseFilter } from '../../src/store/search/searchQuery.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const order = defineJob({ name: 'order', work: ({ input }) => ({ total: (input as { n: number }).n * 10 }) });
const other = defineJob({ name: 'other', work: () => 1 });

describeOnEachStore('searchJobs', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  /** Every match of `query`, page after page; asserts each page kept to its bound. */
  async function all(query: SearchQuery): Promise<{ jobs: JobRecord[]; pages: number }> {
    assert.ok(hasJobSearch(h.store));
    const jobs: JobRecord[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await h.store.searchJobs({ ...query, cursor });
      pages++;
      assert.ok(page.scanned <= (query.scanLimit ?? 1000), `scanned ${page.scanned}`);
      assert.ok(page.jobs.length <= (query.limit ?? 50));
      jobs.push(...page.jobs);
      cursor = page.cursor ?? undefined;
      assert.ok(pages < 100, 'the walk ends');
    } while (cursor);
    return { jobs, pages };
  }

  it('walks a set larger than one page with its cursor: every match once, each call bounded', async () => {
    h = world();
    const client = h.client({ jobs: [order, other] });
    const items = Array.from({ length: 450 }, (_, n) => ({
      machine: n % 5 === 0 ? 'other' : 'order',
      input: { n, customer: { tier: n % 3 === 0 ? 'gold' : 'basic', name: `cust-${n}` } },
    }));
    await client.enqueueMany(items);
    await client.enqueue('order', { n: 1000, customer: { tier: 'gold' } }, { queue: 'eu' });

    const gold = await all({
      where: [parseFilter('input.customer.tier = gold')],
      scanLimit: 120,
      limit: 500,
    });
    const expected = items.filter((i) => i.input.customer.tier === 'gold').length + 1;
    assert.equal(gold.jobs.length, expected);
    assert.equal(new Set(gold.jobs.map((j) => j.id)).size, expected, 'no job found twice');
    assert.ok(gold.pages >= 4, `the scan took ${gold.pages} pages of 120`);
    assert.ok(
      gold.jobs.some((j) => j.queue === 'eu'),
      'every queue is searched when none is named',
    );

    const few = await all({ queue: 'default', machine: 'order', limit: 7, scanLimit: 1000 });
    assert.equal(few.jobs.length, 360);
    assert.ok(few.jobs.every((j) => j.machine === 'order' && j.queue === 'default'));
  });

  it('compares numbers as numbers, and != / contains / startsWith on nested input', async () => {
    h = world();
    const client = h.client({ jobs: [order] });
    const ids = await client.enqueueMany(
      [5, 42, 420, 7].map((n) => ({
        machine: 'order',
        input: { n, orderId: n === 7 ? '42' : n, tags: ['x', `t${n}`], customer: { name: `Ann ${n}` } },
      })),
    );
    const find = async (...where: string[]) =>
      (await all({ where: where.map(parseFilter) })).jobs
        .map((j) => (j.input as { n: number }).n)
        .sort((a, b) => a - b);
    assert.deepEqual(await find('input.orderId = 42'), [7, 42], 'the text "42" is the number 42');
    assert.deepEqual(await find('input.orderId != 42'), [5, 420]);
    assert.deepEqual(await find('input.n > 7'), [42, 420], '420 > 7 as numbers, not as text');
    assert.deepEqual(await find('input.n <= 7', 'input.n >= 6'), [7]);
    assert.deepEqual(await find('input.customer.name startsWith Ann 4'), [42, 420]);
    assert.deepEqual(await find('input.customer.name contains n 42'), [42, 420]);
    assert.deepEqual(await find('input.tags contains t5'), [5], 'an array holds the value');
    assert.deepEqual(await find('input.missing = null'), [5, 7, 42, 420]);
    const prefix = ids[1]!.slice(0, 20);
    assert.ok((await all({ idPrefix: prefix })).jobs.some((j) => j.id === ids[1]));
  });

  it('finds by status, current state, output and time range once jobs ran', async () => {
    h = world();
    const client = h.client({ jobs: [order] });
    const before = Date.now() - 60_000;
    const [a, b] = await client.enqueueMany([
      { machine: 'order', input: { n: 1 } },
      { machine: 'order', input: { n: 2 } },
    ]);
    await h.started({ jobs: [order] });
    await client.waitForResult(a, { timeoutMs: 5000 });
    await client.waitForResult(b, { timeoutMs: 5000 });
    const done = await all({ status: 'done', where: [parseFilter('output.total = 20')] });
    assert.deepEqual(
      done.jobs.map((j) => j.id),
      [b],
    );
    assert.equal((await all({ status: 'queued' })).jobs.length, 0);
    const state = (await client.get(a))!.state;
    const statePath = typeof state === 'string' ? state : Object.keys(state as object)[0]!;
    assert.equal((await all({ state: statePath })).jobs.length, 2);
    assert.equal((await all({ createdFrom: before })).jobs.length, 2);
    assert.equal((await all({ createdTo: before })).jobs.length, 0);
    assert.equal((await all({ updatedFrom: Date.now() + 3_600_000 })).jobs.length, 0);
  });

  it("searches a partitioned queue's partitions when no queue is named", async () => {
    h = world();
    const client = h.client({ jobs: [order] });
    await client.configureQueue('parts', { partitions: 3 });
    const ids = await client.enqueueMany(
      Array.from({ length: 9 }, (_, n) => ({
        machine: 'order',
        input: { n, tag: 'p' },
        options: { queue: 'parts' },
      })),
    );
    const found = await all({ where: [parseFilter('input.tag = p')] });
    assert.deepEqual(found.jobs.map((j) => j.id).sort(), [...ids].sort());
    assert.ok(new Set(found.jobs.map((j) => j.queue)).size > 1, 'the jobs sit in several partitions');
  });

  it('refuses a bad query with INVALID_INPUT naming the part at fault', async () => {
    h = world();
    assert.ok(hasJobSearch(h.store));
    const store = h.store;
    const refused = async (query: SearchQuery | (() => unknown), field: string, words: RegExp) => {
      const run = typeof query === 'function' ? async () => query() : () => store.searchJobs(query);
      await assert.rejects(run, (err: any) => {
        assert.ok(err instanceof ValidationError, String(err));
        assert.equal(err.code, 'INVALID_INPUT');
        assert.equal(err.field, field);
        assert.match(err.message, words);
        return true;
      });
    };
    await refused(() => parseFilter('input.n ~ 4'), 'where', /cannot read the filter/);
    await refused(() => parseFilter('secret.n = 4'), 'where', /must start with one of input/);
    await refused(() => parseFilter('input.n > big'), 'where', /compares numbers/);
    await refused({ limit: 0 }, 'limit', /limit must be an integer from 1 to 500/);
    await refused({ scanLimit: 20_000 }, 'scanLimit', /1 to 10000/);
    await refused({ cursor: 'nonsense' }, 'cursor', /not a cursor/);
    await refused({ status: 'sleeping' as never }, 'status', /unknown status/);
  });
});
