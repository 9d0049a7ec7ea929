// The overview's charts of each queue over time (GET /queues/:queue/series, drawn by
// browser/seriesChart.ts), in Debian's chromium against a real server, redis-server and
// supervisor: at 1280x800 and 420x800, light and dark, each chart lies inside the window, has
// labelled axes and a legend, and no text box overlaps another.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { createServer } from '../../src/http/createServer.js';
import { defineJob } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, sleep, startRedis, type TestRedis } from '../support/redis.js';
import { collectPageErrors, launchChromium, screenshot, type TestBrowser } from './support/browser.js';

const TOKEN = 'dashboard-series-token';
const WAIT = { timeout: 15_000 };
const Q = 'seriesq';
const CHARTS = ['throughput', 'failure-rate', 'wait', 'run'];

interface Box {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

describe('dashboard queues over time', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let url: string;
  let chrome: TestBrowser;
  const job = defineJob({
    name: 's',
    retry: { maxAttempts: 1 },
    work: async ({ input }: { input: string }) => {
      if (input === 'fail') throw new Error('bad');
      await sleep(30);
      return input;
    },
  });

  before(async () => {
    chrome = await launchChromium();
    redis = await startRedis();
    h = new Harness(redis);
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job], queues: [Q] });
    const ids = [];
    for (let i = 0; i < 6; i++)
      ids.push(await client.enqueue('s', i % 3 === 0 ? 'fail' : 'ok', { queue: Q }));
    for (const id of ids) await client.waitForResult(id, { timeoutMs: 5000 });
    app = createServer({ store: h.store, jobs: [job], tokens: [TOKEN], logger: false });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await chrome?.close();
    await app?.close();
    await h?.close();
    await redis?.stop();
  });

  async function open(): Promise<{ page: Page; errors: string[] }> {
    const page = await chrome.context.newPage();
    const errors = collectPageErrors(page);
    await page.addInitScript(`localStorage.setItem('machinist.token', ${JSON.stringify(TOKEN)})`);
    await page.goto(`${url}/#/`);
    return { page, errors };
  }

  /** Every text box of the queue's charts (axis labels, titles, legend entries), as drawn. */
  async function textBoxes(page: Page): Promise<Box[]> {
    return page.locator(`[data-series-queue="${Q}"]`).evaluate((root) =>
      [...root.querySelectorAll('text, figcaption, .sc-legend li')].map((e) => {
        const r = e.getBoundingClientRect();
        return { text: e.textContent ?? '', x: r.x, y: r.y, width: r.width, height: r.height };
      }),
    );
  }

  async function checkLayout(page: Page, label: string): Promise<void> {
    const panel = page.locator(`[data-series-queue="${Q}"]`);
    // The throughput chart says what it counted: 4 done, 2 failed.
    await panel.locator('[data-chart="throughput"] svg[aria-label*="4 done, 2 failed"]').waitFor(WAIT);
    const viewport = page.viewportSize()!;
    for (const id of CHARTS) {
      const chart = panel.locator(`[data-chart="${id}"]`);
      // The page redraws its charts on each refresh (a new svg): a box read as one is replaced
      // is null, so it is read again.
      const box = (await eventually(() => chart.locator('svg').boundingBox(), 10_000))!;
      assert.ok(
        box.x >= 0 && box.x + box.width <= viewport.width,
        `${label}: ${id} inside the window (${JSON.stringify(box)})`,
      );
      assert.ok((await chart.locator('.sc-y text').count()) >= 2, `${label}: ${id} has y labels`);
      assert.ok((await chart.locator('.sc-x text').count()) >= 2, `${label}: ${id} has time labels`);
      assert.match((await chart.locator('.sc-x text').first().textContent()) ?? '', /^\d\d:\d\d$/);
      assert.ok((await chart.locator('.sc-legend li').count()) >= 1, `${label}: ${id} has a legend`);
    }
    const boxes = (await textBoxes(page)).filter((b) => b.width > 0 && b.height > 0);
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        const overlap =
          a.x < b.x + b.width - 0.5 &&
          b.x < a.x + a.width - 0.5 &&
          a.y < b.y + b.height - 0.5 &&
          b.y < a.y + a.height - 0.5;
        assert.ok(!overlap, `${label}: "${a.text}" overlaps "${b.text}"`);
      }
    const fits = await page.evaluate<boolean>(
      'document.documentElement.scrollWidth <= document.documentElement.clientWidth',
    );
    assert.equal(fits, true, `${label}: nothing scrolls sideways`);
  }

  it('draws throughput, failure rate, wait and run with labelled axes inside the window, no text overlapping, light and dark, wide and narrow', async () => {
    const { page, errors } = await open();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 420]) {
        await page.setViewportSize({ width, height: 800 });
        // The charts redraw at their new width (a ResizeObserver): wait until the SVG has it.
        const run = page.locator(`[data-series-queue="${Q}"] [data-chart="run"] svg`);
        await eventually(async () => Number(await run.getAttribute('width')) <= width - 32, 10_000);
        await checkLayout(page, `${width} px ${scheme}`);
        await screenshot(page, `overview-series-${width}-${scheme}`);
      }
    }
    // The window picker: 24 h has 96 points of 15 minutes, the time axis labels at round hours.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('button[data-window="24h"]').click();
    await page
      .locator(`[data-series-queue="${Q}"] [data-chart="throughput"] figcaption`)
      .filter({ hasText: 'per 15 minutes' })
      .waitFor(WAIT);
    await checkLayout(page, '24 h');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
