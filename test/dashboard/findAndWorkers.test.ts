// The dashboard's Find and Workers pages in Debian's chromium against a real server and
// redis-server: a field filter on nested input finds its job, "Load more" continues the scan, a
// bad filter is shown naming its fault; a killed worker process is shown gone with the jobs the
// reaper took back, beside the live survivor. Each page at 1280x800 and 420x800, light and dark:
// no text overlaps another, nothing sticks out sideways.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { createServer } from '../../src/http/createServer.js';
import { defineJob } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { fixtureEnv, killFixture, spawnFixture, type Fixture } from '../support/spawnFixture.js';
import { collectPageErrors, launchChromium, screenshot, type TestBrowser } from './support/browser.js';
import { cutTexts, layoutProblems, LAYOUTS } from './support/layout.js';

const TOKEN = 'dashboard-find-token';
const WAIT = { timeout: 15_000 };

describe('dashboard find and workers pages', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let url: string;
  let chrome: TestBrowser;
  let worker: Fixture | undefined;
  const order = defineJob({ name: 'order', work: ({ input }) => input });
  const slow = defineJob({ name: 'slow', work: () => 'recovered' });

  before(async () => {
    chrome = await launchChromium();
    redis = await startRedis();
    h = new Harness(redis);
    app = createServer({ store: h.store, jobs: [order, slow], tokens: [TOKEN], logger: false });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    await h.client({ jobs: [order] }).enqueueMany(
      Array.from({ length: 120 }, (_, n) => ({
        machine: 'order',
        input: {
          orderId: n,
          customer: { tier: n % 2 === 0 ? 'gold' : 'basic', name: `Customer number ${n}` },
        },
      })),
    );
  });
  after(async () => {
    killFixture(worker?.child);
    await chrome?.close();
    await app?.close();
    await h?.close();
    await redis?.stop();
  });

  async function open(hash: string): Promise<{ page: Page; errors: string[] }> {
    const page = await chrome.context.newPage();
    const errors = collectPageErrors(page);
    await page.addInitScript(`localStorage.setItem('machinist.token', ${JSON.stringify(TOKEN)})`);
    await page.goto(`${url}/${hash}`);
    return { page, errors };
  }

  /** The page at each size and theme: no overlap, nothing outside the window sideways. */
  async function checkLayouts(
    page: Page,
    name: string,
    ready: () => Promise<void>,
    whole?: string,
  ): Promise<void> {
    for (const l of LAYOUTS) {
      await page.setViewportSize({ width: l.width, height: l.height });
      await page.emulateMedia({ colorScheme: l.colorScheme });
      await ready();
      const p = await layoutProblems(page);
      const at = `${name} at ${l.width}x${l.height} ${l.colorScheme}`;
      assert.deepEqual(p.overlaps, [], `${at}: texts overlap`);
      assert.deepEqual(p.outside, [], `${at}: outside the window`);
      assert.equal(p.pageScrollsSideways, false, `${at}: the page scrolls sideways`);
      if (whole) assert.deepEqual(await cutTexts(page, whole), [], `${at}: texts cut in ${whole}`);
      await screenshot(page, `${name}-${l.width}-${l.colorScheme}`);
    }
  }

  it('finds a job by a nested input field, loads more, and names a bad filter', async () => {
    const { page, errors } = await open('#/find');
    await page.locator('textarea[name="where"]').fill('input.orderId = 42');
    await page.locator('form[aria-label="Find jobs"] button[type="submit"]').click();
    await page.locator('[data-find-status]').filter({ hasText: '1 found' }).waitFor(WAIT);
    const rows = page.locator('tbody tr[data-job-id]');
    assert.equal(await rows.count(), 1);
    assert.match((await page.locator('[data-find-status]').textContent()) ?? '', /120 records read/);

    // 60 gold jobs, 50 a page: "Load more" continues from the cursor.
    await page.goto(`${url}/#/find?where=${encodeURIComponent('input.customer.tier = gold')}&machine=order`);
    await page.locator('[data-find-status]').filter({ hasText: '50 found' }).waitFor(WAIT);
    await page.locator('button[data-action="more"]').click();
    await page.locator('[data-find-status]').filter({ hasText: '60 found' }).waitFor(WAIT);
    assert.equal(await rows.count(), 60);
    // Every field of every row readable at each size: a narrow window shows the rows as cards.
    await checkLayouts(page, 'find', () => page.locator('[data-find-status]').waitFor(WAIT), '.jobs-table');

    await page.goto(`${url}/#/find?where=${encodeURIComponent('secret.x = 1')}`);
    await page.locator('[role="alert"]').filter({ hasText: 'must start with one of input' }).waitFor(WAIT);
    assert.deepEqual(
      errors.filter((e) => !/400/.test(e)),
      [],
    );
    await page.close();
  });

  it('shows a live worker with what it runs, and a SIGKILLed one as gone with its requeued jobs', async () => {
    worker = spawnFixture('worker.ts', fixtureEnv(redis, h.prefix));
    await worker.ready;
    const ids = await h.client().enqueueMany([0, 1].map((n) => ({ machine: 'slow', input: { n } })));
    await eventually(() => ids.every((id) => worker!.started.has(id)), 10_000);
    const { page, errors } = await open('#/workers');
    const live = page.locator('[data-worker-status="live"]');
    await live.locator('[data-running] a').nth(1).waitFor(WAIT);
    assert.equal(await live.locator('[data-col="pid"]').textContent(), String(worker.child.pid));
    assert.equal(await live.locator('[data-col="running"]').textContent(), '2 / 10');
    await checkLayouts(page, 'workers-live', () => live.waitFor(WAIT));

    await worker.sigkill();
    await h.started({ jobs: [slow], reaperIntervalMs: 100 });
    const gone = page.locator('[data-worker-status="gone"]');
    await gone.locator('[data-reaped-id]').nth(1).waitFor(WAIT);
    assert.deepEqual(
      (
        await gone
          .locator('[data-reaped-id]')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-reaped-id')))
      ).sort(),
      [...ids].sort(),
    );
    assert.equal(await gone.locator('[data-col="running"]').textContent(), 'none (last reported 2 / 10)');
    await page.locator('[data-worker-status="live"]').waitFor(WAIT);
    await checkLayouts(page, 'workers-gone', () => gone.waitFor(WAIT));
    assert.deepEqual(errors, []);
    await page.close();
  });
});
