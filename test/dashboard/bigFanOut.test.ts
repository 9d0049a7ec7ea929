// A fan-out of 2,000 children on the job page, in a real browser against a real server, Redis
// and Supervisor: the children come in pages of 50 (never all at once), the page stays usable
// while they finish live, and it ends on the parent's final state without a reload.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { countChunk, splitMerge } from '../../machines/splitMerge.js';
import { createServer } from '../../src/http/createServer.js';
import type { Client } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { collectPageErrors, launchChromium, screenshot, type TestBrowser } from './support/browser.js';

const TOKEN = 'dashboard-test-token';
const WAIT = { timeout: 60_000 };
const CHILDREN = 2000;

describe('dashboard job page with thousands of children', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let url: string;
  let chrome: TestBrowser;
  let client: Client;
  const jobs = [splitMerge, countChunk];

  before(async () => {
    chrome = await launchChromium();
    redis = await startRedis();
    h = new Harness(redis);
    // The parent's queue only: the chunks wait on theirs until a worker for it starts below.
    await h.started({ jobs });
    client = h.client({ jobs });
    app = createServer({ store: h.store, jobs, tokens: [TOKEN], logger: false });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await chrome?.close();
    await app?.close();
    await h?.close();
    await redis?.stop();
  });

  it('pages 2,000 children by 50, follows them finishing live and ends on the merged state', async () => {
    const text = Array.from({ length: CHILDREN }, (_, i) => `w${i}`).join(' ');
    const id = await client.enqueue('splitMerge', { text, chunkWords: 1, chunkQueue: 'bulk' });
    await eventually(async () => {
      const rec = await client.get(id);
      return rec?.status === 'waiting' && rec.children?.total === CHILDREN;
    }, 60_000);

    const page = await chrome.context.newPage();
    const errors = collectPageErrors(page);
    await page.addInitScript(`localStorage.setItem('machinist.token', ${JSON.stringify(TOKEN)})`);
    const started = Date.now();
    await page.goto(`${url}/#/job/${id}`);
    await page.locator('[data-child-id]').nth(49).waitFor(WAIT);
    const firstPaint = Date.now() - started;
    assert.equal(await page.locator('[data-child-id]').count(), 50, 'one page of children, not 2,000');
    assert.match((await page.locator('[aria-label="Children"] p').textContent()) ?? '', /0 of 2000 finished/);
    await page.click('button:has-text("More children")');
    await page.locator('[data-child-id]').nth(99).waitFor(WAIT);
    assert.equal(await page.locator('[data-child-id]').count(), 100);

    // The children finish while the page watches: it follows their queue's stream (throttled)
    // and ends on the parent's final state, still responsive to the scrubber meanwhile.
    await h.started({ jobs, queue: 'bulk', concurrency: 16 });
    await page.locator('[data-job-status="done"]').waitFor({ timeout: 240_000 });
    await page.locator('[data-state-id="splitMerge.merged"][data-active="true"]').waitFor(WAIT);
    await page.locator('[aria-label="Children"] p', { hasText: '2000 of 2000 finished' }).waitFor(WAIT);
    assert.equal(await page.locator('[data-child-id]').count(), 100, 'still the two pages read');
    assert.equal(await page.locator('[data-child-id][data-status="done"]').count(), 100);
    const t0 = Date.now();
    await page.locator('.timeline li[data-entry="0"]').click();
    await page.locator('.scrubber span', { hasText: 'after entry 1' }).waitFor(WAIT);
    const scrubMs = Date.now() - t0;
    assert.equal((await client.get(id))?.output !== null, true);
    console.log(`# 2,000 children: first page drawn in ${firstPaint} ms, a scrub answered in ${scrubMs} ms`);
    await screenshot(page, 'fanout-2000');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
