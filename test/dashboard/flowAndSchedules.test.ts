// The dashboard's flow panel (a queue's pause, limits and use per key, on its overview card) and
// its schedules page, in Debian's chromium against a real server and redis-server. No supervisor
// runs: a test worker claims the jobs (Harness.claimAs), so what is running and waiting is
// fixed while the page is looked at. A second server without `actions` shows the read-only page.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { createServer } from '../../src/http/createServer.js';
import { defineJob, type Client } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { collectPageErrors, launchChromium, screenshot, type TestBrowser } from './support/browser.js';
import { cutTexts, layoutProblems } from './support/layout.js';

const TOKEN = 'dashboard-flow-token';
const WAIT = { timeout: 15_000 };
const Q = 'flowq';

describe('dashboard flow controls and schedules', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let readOnlyApp: FastifyInstance;
  let url: string;
  let readOnlyUrl: string;
  let chrome: TestBrowser;
  let client: Client;
  const jobs = [defineJob({ name: 'f', work: ({ input }) => input })];

  before(async () => {
    chrome = await launchChromium();
    redis = await startRedis();
    h = new Harness(redis);
    client = h.client({ jobs });
    const server = (actions: boolean) =>
      createServer({ store: h.store, jobs, tokens: [TOKEN], logger: false, dashboard: { actions } });
    app = server(true);
    readOnlyApp = server(false);
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    readOnlyUrl = await readOnlyApp.listen({ port: 0, host: '127.0.0.1' });

    // perKey 1: of tenant-a's three jobs one runs and two wait; tenant-b's one runs, and so does
    // one job of each of nine more keys (11 keys: more than a card shows).
    await client.setQueueLimits(Q, {
      concurrency: { total: 20, perKey: 1 },
      rateLimit: { limit: 100, perMs: 1000, burst: 10 },
    });
    const more = Array.from({ length: 9 }, (_, i) => `k${i + 1}`);
    for (const key of ['tenant-a', 'tenant-a', 'tenant-a', 'tenant-b', ...more])
      await client.enqueue('f', key, { queue: Q, concurrencyKey: key });
    assert.equal((await h.claimAs('w', { queue: Q, max: 20 })).length, 11);
    await client.schedule('nightly', { cron: '0 3 * * *', timezone: 'UTC', machine: 'f' });
  });
  after(async () => {
    await chrome?.close();
    await app?.close();
    await readOnlyApp?.close();
    await h?.close();
    await redis?.stop();
  });

  async function open(base: string, hash: string): Promise<{ page: Page; errors: string[] }> {
    const page = await chrome.context.newPage();
    const errors = collectPageErrors(page);
    await page.addInitScript(`localStorage.setItem('machinist.token', ${JSON.stringify(TOKEN)})`);
    await page.goto(`${base}/${hash}`);
    return { page, errors };
  }

  /** The page fits its window: nothing scrolls sideways but inside a table's own scroller. */
  async function fitsWidth(page: Page): Promise<boolean> {
    return page.evaluate<boolean>(
      'document.documentElement.scrollWidth <= document.documentElement.clientWidth',
    );
  }

  it("shows a queue's limits with their use and the keys by waiting jobs, and pauses and resumes it from its card", async () => {
    const { page, errors } = await open(url, '#/');
    const panel = page.locator(`[data-flow-queue="${Q}"]`);
    const row = (key: string, col: string) => panel.locator(`[data-flow-key="${key}"] [data-col="${col}"]`);
    await row('tenant-a', 'waiting').filter({ hasText: '2' }).waitFor(WAIT);
    assert.equal(await row('tenant-a', 'running').textContent(), '1');
    assert.equal(await row('k1', 'running').textContent(), '1');
    assert.equal(await row('k1', 'waiting').textContent(), '0');
    // perKey 1: a key with a running job is full (its next job waits), one of each.
    assert.equal(await row('tenant-a', 'full').textContent(), 'full');
    assert.equal(await row('k1', 'full').textContent(), 'full');
    assert.deepEqual(
      await panel
        .locator('[data-flow-key]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-flow-key'))),
      ['tenant-a', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7'],
      'the key with the most waiting jobs first, then by most running and by name, 8 at most',
    );
    assert.equal(await panel.locator('[data-flow-more]').textContent(), 'and 3 more keys (0 waiting)');
    assert.match((await panel.locator('[data-flow-running]').textContent()) ?? '', /^11 \/ 20 running/);
    assert.equal(await panel.locator('[data-flow-per-key]').textContent(), '1 per key');
    assert.equal(
      await panel.locator('[data-flow-throttle]').textContent(),
      'throttle 100 starts per 1 s (+10 burst)',
    );
    await panel.locator('[data-flow-state="running"]').waitFor(WAIT);
    await screenshot(page, 'flow-panel');

    await panel.locator('button[data-action="pause"]').click();
    await eventually(async () => (await client.queueLimits(Q)).paused, 10_000);
    await panel.locator('[data-flow-state="paused"]').waitFor(WAIT);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'flow-panel-paused-dark');

    await panel.locator('button[data-action="resume"]').click();
    await eventually(async () => !(await client.queueLimits(Q)).paused, 10_000);
    await panel.locator('[data-flow-state="running"]').waitFor(WAIT);

    await page.setViewportSize({ width: 420, height: 800 });
    await panel.locator('button[data-action="pause"]').waitFor(WAIT);
    assert.equal(await fitsWidth(page), true, 'the overview fits a 420 px window');
    await screenshot(page, 'flow-panel-narrow-dark');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('marks a paused key and shows the key and machine throttles', async () => {
    await client.pauseKey(Q, 'k2');
    await client.setQueueLimits(Q, { keyRateLimit: { limit: 5, perMs: 1000, mode: 'skip' } });
    const { page, errors } = await open(url, '#/');
    const panel = page.locator(`[data-flow-queue="${Q}"]`);
    await panel.locator('[data-flow-key="k2"] [data-key-paused]').waitFor(WAIT);
    assert.equal(await panel.locator('[data-flow-key="k2"] [data-col="full"]').textContent(), 'paused');
    assert.equal(
      await panel.locator('[data-flow-key-throttle]').textContent(),
      'per key: throttle 5 starts per 1 s, over it: skipped',
    );
    await client.setQueueLimits(Q, { machines: { f: { rateLimit: { limit: 2, perMs: 1000, burst: 1 } } } });
    await page.reload();
    assert.equal(
      await panel.locator('[data-flow-machine-throttle="f"]').textContent(WAIT),
      'machine f: throttle 2 starts per 1 s (+1 burst)',
    );
    await client.resumeKey(Q, 'k2');
    await client.setQueueLimits(Q, { keyRateLimit: null, machines: { f: { rateLimit: null } } });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('shows each schedule in words with its next ticks, and pauses and resumes it', async () => {
    const info = await client.getSchedule('nightly');
    assert.ok(info);
    const { page, errors } = await open(url, '#/schedules');
    const row = page.locator('[data-schedule-id="nightly"]');
    await row.waitFor(WAIT);
    assert.equal(await row.locator('[data-col="text"]').textContent(), info.text);
    assert.deepEqual(
      await row
        .locator('[data-col="next"] time')
        .evaluateAll((els) => els.map((e) => e.getAttribute('datetime'))),
      info.nextTicks.slice(0, 3).map((t) => new Date(t).toISOString()),
    );
    assert.match(info.nextTicks[0] ? new Date(info.nextTicks[0]).toISOString() : '', /T03:00:00\.000Z$/);
    // The first tick counts down; the last result is the last tick's job, linked, with its status
    // (queued: no supervisor runs here).
    await row
      .locator('[data-col="next"] [data-countdown]')
      .filter({ hasText: /\(in \d/ })
      .waitFor(WAIT);
    assert.equal(await row.locator('[data-col="last"]').textContent(), '-');
    const triggered = await client.triggerSchedule('nightly');
    assert.ok(triggered);
    const last = row.locator(`[data-col="last"] a[href="#/job/${triggered}"]`);
    await last.waitFor(WAIT);
    assert.equal(await row.locator('[data-col="last"] .status').textContent(), 'queued');
    await screenshot(page, 'schedules');

    await row.locator('button[data-action="pause"]').click();
    await eventually(async () => (await client.getSchedule('nightly'))?.paused, 10_000);
    await row.locator('button[data-action="resume"]').click();
    await eventually(async () => (await client.getSchedule('nightly'))?.paused === false, 10_000);
    await row.locator('button[data-action="pause"]').waitFor(WAIT);

    await page.setViewportSize({ width: 420, height: 800 });
    assert.equal(await fitsWidth(page), true, 'the schedules page fits a 420 px window');
    // Not by hiding columns past a scroll edge: at 420 px each schedule is a card, all of it in view.
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      assert.deepEqual(await cutTexts(page, '[data-schedule-id]'), [], `texts cut at 420 px (${scheme})`);
      assert.deepEqual((await layoutProblems(page)).overlaps, [], `texts overlap at 420 px (${scheme})`);
      await screenshot(page, `schedules-420-${scheme}`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('says when a throttled queue next starts a job', async () => {
    await client.setQueueLimits('thr', { rateLimit: { limit: 1, perMs: 60_000 } });
    await client.enqueue('f', 1, { queue: 'thr' });
    await client.enqueue('f', 2, { queue: 'thr' });
    assert.equal((await h.claimAs('w', { queue: 'thr', max: 5 })).length, 1, 'one start per minute');
    const until = (await client.queueLimits('thr')).throttledUntil;
    assert.ok(until !== undefined);
    const { page, errors } = await open(url, '#/');
    const throttled = page.locator(`[data-flow-queue="thr"] [data-flow-throttled="${until}"]`);
    await throttled.waitFor(WAIT);
    assert.match((await throttled.textContent()) ?? '', /^throttled next start at /);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('offers no pause or resume on a read-only dashboard, and still shows the use', async () => {
    const { page, errors } = await open(readOnlyUrl, '#/');
    const panel = page.locator(`[data-flow-queue="${Q}"]`);
    await panel.locator('[data-flow-key="k1"] [data-col="running"]').filter({ hasText: '1' }).waitFor(WAIT);
    await panel.locator('[data-flow-state]').waitFor(WAIT);
    assert.equal(await panel.locator('button').isVisible(), false);
    await page.goto(`${readOnlyUrl}/#/schedules`);
    await page.locator('[data-schedule-id="nightly"]').waitFor(WAIT);
    assert.equal(await page.locator('[data-schedule-id="nightly"] button').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
