// The machines page's diff of two versions, as drawn: each state added, removed or renamed says
// so on the chart itself, in a tag on its box's top edge ("added", "removed", and for a renamed
// state "was packing" on the newer chart, "→ picking" on the older), inside its box, over no
// other text, at 1280x800 and 420x800, light and dark. The server knows both versions of
// `order` (test/chart/fixtures/orderVersions.ts); no job runs it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../../src/http/createServer.js';
import { orderV1, orderV2 } from '../chart/fixtures/orderVersions.js';
import { Harness } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { collectPageErrors, launchChromium, screenshot, type TestBrowser } from './support/browser.js';
import { layoutProblems, LAYOUTS } from './support/layout.js';

const TOKEN = 'diff-token';
const WAIT = { timeout: 15_000 };

interface Tag {
  chart: string;
  state: string;
  text: string;
  /** The tag's text within its state's box, sideways. */
  inBox: boolean;
  /** Other texts of the chart the tag's text overlaps. */
  over: string[];
  /** Its text's height on screen, px. */
  px: number;
}

// Run in the page: every diff tag, where it is against its box and the chart's other texts.
const TAGS = `(() => [...document.querySelectorAll('svg.mc-chart[data-machine] .mc-diff-tag text')].map((t) => {
  const svg = t.ownerSVGElement;
  const g = t.closest('[data-state-id]');
  const box = g.querySelector(':scope > rect.mc-box').getBoundingClientRect();
  const r = t.getBoundingClientRect();
  const over = [...svg.querySelectorAll('text')].filter((o) => o !== t && o.textContent.trim() !== '').filter((o) => {
    const b = o.getBoundingClientRect();
    return Math.min(r.right, b.right) - Math.max(r.left, b.left) > 0.5 && Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top) > 0.5;
  }).map((o) => o.textContent);
  return {
    chart: svg.dataset.machine + '@' + svg.dataset.version,
    state: g.dataset.stateId,
    text: t.textContent,
    inBox: r.left >= box.left - 0.5 && r.right <= box.right + 0.5,
    over,
    px: r.height,
  };
}))()`;

describe('dashboard machines page: a version diff drawn on the charts', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let url: string;
  let chrome: TestBrowser;

  before(async () => {
    chrome = await launchChromium();
    redis = await startRedis();
    h = new Harness(redis);
    app = createServer({ store: h.store, jobs: [orderV1, orderV2], tokens: [TOKEN], logger: false });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await chrome?.close();
    await app?.close();
    await h?.close();
    await redis?.stop();
  });

  for (const l of LAYOUTS)
    it(`labels added, removed and renamed states on both charts at ${l.width}x${l.height} (${l.colorScheme})`, async () => {
      const page = await chrome.context.newPage();
      const errors = collectPageErrors(page);
      await page.setViewportSize({ width: l.width, height: l.height });
      await page.emulateMedia({ colorScheme: l.colorScheme });
      await page.addInitScript(`localStorage.setItem('machinist.token', ${JSON.stringify(TOKEN)})`);
      await page.goto(`${url}/#/machine/order`);
      await page.locator('[data-machine="order@2"] [data-diff="renamed"] .mc-diff-tag').waitFor(WAIT);
      await page.waitForTimeout(200);
      const tags = await page.evaluate<Tag[]>(TAGS);
      assert.deepEqual(tags.map((t) => `${t.chart} ${t.state}: ${t.text}`).sort(), [
        'order@1 order.giftWrap: removed',
        'order@1 order.packing: → picking',
        'order@2 order.onHold: added',
        'order@2 order.picking: was packing',
      ]);
      for (const t of tags) {
        assert.ok(t.inBox, `${t.chart} ${t.state}: its tag "${t.text}" is wider than its box`);
        assert.deepEqual(t.over, [], `${t.chart} ${t.state}: its tag "${t.text}" covers other text`);
      }
      // Its words are those of its accessible label too.
      assert.match(
        (await page
          .locator('[data-machine="order@2"] [data-state-id="order.picking"]')
          .getAttribute('aria-label')) ?? '',
        /renamed from order\.packing/,
      );
      const p = await layoutProblems(page);
      assert.deepEqual(p.overlaps, [], 'texts overlap');
      assert.equal(p.pageScrollsSideways, false, 'the page scrolls sideways');
      await screenshot(page, `diff-${l.width}-${l.colorScheme}`);
      assert.deepEqual(errors, []);
      await page.close();
    });
});
