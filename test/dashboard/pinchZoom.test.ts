// A real two-finger pinch on a chart, at 420 px on a touch screen: touch points sent through the
// Chrome DevTools Protocol (Input.dispatchTouchEvent), as a phone's screen sends them, so the
// browser's own touch handling (touch-action, pointer events from touches) runs as it would
// there. Fingers moving apart zoom in about their midpoint, together zoom out, whether the
// chart starts on the path taken (partly shown) or fitted whole.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { CDPSession, Page } from 'playwright-core';
import { approvalPipeline } from '../../machines/approval.js';
import { createServer } from '../../src/http/createServer.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { collectPageErrors, launchChromium, screenshot, type TestBrowser } from './support/browser.js';

const TOKEN = 'pinch-token';
const WAIT = { timeout: 30_000 };

describe('dashboard chart: touch pinch', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let url: string;
  let chrome: TestBrowser;
  let approvalId: string;
  const approval = approvalPipeline({ notifyReviewer: async () => {}, publish: async (d) => d });

  before(async () => {
    chrome = await launchChromium({ hasTouch: true });
    redis = await startRedis();
    h = new Harness(redis);
    await h.started({ jobs: [approval] });
    const client = h.client({ jobs: [approval] });
    app = createServer({ store: h.store, jobs: [approval], tokens: [TOKEN], logger: false });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    approvalId = await client.enqueue('approval', { documentId: 'doc-pinch' });
    await eventually(async () => (await client.get(approvalId))?.status === 'waiting', 15_000);
  });
  after(async () => {
    await chrome?.close();
    await app?.close();
    await h?.close();
    await redis?.stop();
  });

  /** Two fingers about (cx, cy), `from` px apart to `to` px apart, horizontally, in steps. */
  async function pinch(cdp: CDPSession, cx: number, cy: number, from: number, to: number): Promise<void> {
    const points = (gap: number) => [
      { x: cx - gap / 2, y: cy, id: 0, radiusX: 5, radiusY: 5, force: 1 },
      { x: cx + gap / 2, y: cy, id: 1, radiusX: 5, radiusY: 5, force: 1 },
    ];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: points(from) });
    const steps = 8;
    for (let i = 1; i <= steps; i++)
      await cdp.send('Input.dispatchTouchEvent', {
        type: 'touchMove',
        touchPoints: points(from + ((to - from) * i) / steps),
      });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  }

  async function open(): Promise<{ page: Page; cdp: CDPSession; errors: string[] }> {
    const page = await chrome.context.newPage();
    const errors = collectPageErrors(page);
    await page.setViewportSize({ width: 420, height: 800 });
    await page.addInitScript(`localStorage.setItem('machinist.token', ${JSON.stringify(TOKEN)})`);
    await page.goto(`${url}/#/job/${approvalId}`);
    await page.locator('[data-state-id="approval.awaitingDecision"][data-active="true"]').waitFor(WAIT);
    await page.waitForTimeout(200);
    return { page, cdp: await chrome.context.newCDPSession(page), errors };
  }

  const viewBox = async (page: Page) =>
    (await page.locator('#chart svg.mc-chart[data-machine]').getAttribute('viewBox'))!.split(' ').map(Number);

  for (const start of ['path', 'fit'] as const)
    it(`zooms in when two fingers move apart and out when they close, starting from the ${start} view`, async () => {
      const { page, cdp, errors } = await open();
      if (start === 'fit') await page.locator('#chart [data-chart-action="fit"]').tap();
      assert.equal(await page.locator('#chart .chart-frame').getAttribute('data-view'), start);
      const vp = (await page.locator('#chart .chart-viewport').boundingBox())!;
      const cx = vp.x + vp.width / 2;
      const cy = vp.y + vp.height / 2;
      const before = await viewBox(page);
      const scrollBefore = await page.evaluate<number>('window.scrollY');

      await pinch(cdp, cx, cy, 60, 220);
      await page.waitForTimeout(100);
      const apart = await viewBox(page);
      assert.ok(
        apart[2]! < before[2]! * 0.8 && apart[3]! < before[3]! * 0.8,
        `fingers apart zoom in: ${before.join(' ')} -> ${apart.join(' ')}`,
      );
      // About the fingers' midpoint: the chart point under it stays under it.
      const mid = (v: number[]) => [v[0]! + v[2]! / 2, v[1]! + v[3]! / 2];
      const [bx, by] = mid(before);
      const [ax, ay] = mid(apart);
      assert.ok(
        Math.abs(ax! - bx!) < 0.5 && Math.abs(ay! - by!) < 0.5,
        `about the midpoint: ${bx},${by} -> ${ax},${ay}`,
      );
      // The page itself neither zoomed nor scrolled: the gesture went to the chart.
      assert.equal(await page.evaluate<number>('window.visualViewport.scale'), 1);
      assert.equal(await page.evaluate<number>('window.scrollY'), scrollBefore);
      await screenshot(page, `pinch-${start}-420`);

      await pinch(cdp, cx, cy, 220, 60);
      await page.waitForTimeout(100);
      const together = await viewBox(page);
      assert.ok(
        together[2]! > apart[2]! * 1.2,
        `fingers together zoom out: ${apart.join(' ')} -> ${together.join(' ')}`,
      );
      assert.deepEqual(errors, []);
      await page.close();
    });
});
