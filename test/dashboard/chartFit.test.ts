// Charts that fit, colours that mean one thing, and the machines page, in a real browser
// (Debian's chromium through playwright-core) at 1280x800 and 420x800, light and dark: after
// Fit every state box is inside the chart's viewport, no text overlaps another, no label is
// wider than its box; the zoom buttons and keys move the view; a narrow window starts on the
// path taken; the machines page draws each machine once, with a diff of two versions.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { approvalPipeline } from '../../machines/approval.js';
import { countChunk, splitMerge } from '../../machines/splitMerge.js';
import { createServer } from '../../src/http/createServer.js';
import { defineJob, type Client } from '../../src/index.js';
import { orderV1, orderV2 } from '../chart/fixtures/orderVersions.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { collectPageErrors, launchChromium, screenshot, type TestBrowser } from './support/browser.js';

const TOKEN = 'chart-fit-token';
const WAIT = { timeout: 30_000 };
const SIZES = [
  { width: 1280, height: 800 },
  { width: 420, height: 800 },
] as const;
const THEMES = ['light', 'dark'] as const;

/** Fails twice, then succeeds: its lifecycle chart has CLAIM ×3 and FAIL ×2 side by side. */
let flakyRuns = 0;
const flaky = defineJob({
  name: 'flaky',
  retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 50 } },
  work: async () => {
    if (++flakyRuns < 3) throw new Error('not yet');
    return 'ok';
  },
});
const email = defineJob({ name: 'email', work: async () => 'sent' });
const resize = defineJob({ name: 'resize', work: async () => 'small' });

/**
 * What is wrong with the charts in `scope` as drawn now, in screen pixels: state boxes outside
 * their chart's viewport, texts overlapping one another, labels wider than their box.
 */
const CHART_PROBLEMS = `(scope) => {
  const out = { outside: [], overlaps: [], tooWide: [], charts: 0 };
  const root = scope ? document.querySelector(scope) : document;
  for (const svg of root.querySelectorAll('svg.mc-chart[data-machine]')) {
    out.charts++;
    const vp = (svg.closest('.chart-viewport') ?? svg).getBoundingClientRect();
    for (const r of svg.querySelectorAll('.mc-state > rect.mc-box')) {
      const b = r.getBoundingClientRect();
      if (b.left < vp.left - 1 || b.top < vp.top - 1 || b.right > vp.right + 1 || b.bottom > vp.bottom + 1)
        out.outside.push(r.parentElement.dataset.stateId);
    }
    const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim() !== '');
    const boxes = texts.map((t) => t.getBoundingClientRect());
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++) {
        const a = boxes[i], b = boxes[j];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 0.5 && h > 0.5) out.overlaps.push(texts[i].textContent + ' / ' + texts[j].textContent);
      }
    for (const t of svg.querySelectorAll('text.mc-edge-label')) {
      const bg = t.parentElement.querySelector('rect.mc-edge-label-bg').getBBox();
      const b = t.getBBox();
      if (b.x < bg.x - 0.5 || b.x + b.width > bg.x + bg.width + 0.5) out.tooWide.push(t.textContent + ' ' + Math.round(b.width) + '>' + Math.round(bg.width));
    }
    for (const t of svg.querySelectorAll('.mc-state > text')) {
      const box = t.parentElement.querySelector(':scope > rect.mc-box').getBBox();
      const b = t.getBBox();
      if (b.x < box.x || b.x + b.width > box.x + box.width) out.tooWide.push(t.textContent + ' ' + Math.round(b.width) + '>' + Math.round(box.width));
    }
  }
  return out;
}`;

interface Problems {
  outside: string[];
  overlaps: string[];
  tooWide: string[];
  charts: number;
}

/** [r, g, b] in 0..255 of a computed colour (rgb() or color(srgb ...)). */
const RGB = `(c) => {
  const m = /color\\(srgb ([\\d.]+) ([\\d.]+) ([\\d.]+)/.exec(c);
  if (m) return [m[1], m[2], m[3]].map((x) => Math.round(Number(x) * 255));
  return (c.match(/[\\d.]+/g) ?? []).slice(0, 3).map(Number);
}`;

describe('dashboard charts: fit, zoom, colour, machines page', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let url: string;
  let chrome: TestBrowser;
  let client: Client;
  let approvalId: string;
  let flakyId: string;
  let splitId: string;
  const approval = approvalPipeline({
    notifyReviewer: async () => {},
    publish: async (d) => `https://docs/${d}`,
  });
  const run = [approval, splitMerge, countChunk, flaky, email, resize];

  before(async () => {
    chrome = await launchChromium();
    redis = await startRedis();
    h = new Harness(redis);
    await h.started({ jobs: run });
    client = h.client({ jobs: run });
    // The server knows both versions of `order` (no job runs it): the machines page diffs them.
    app = createServer({ store: h.store, jobs: [...run, orderV1, orderV2], tokens: [TOKEN], logger: false });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    approvalId = await client.enqueue('approval', { documentId: 'doc-fit' });
    flakyId = await client.enqueue('flaky', {});
    splitId = await client.enqueue('splitMerge', { text: 'a b c d e f', chunkWords: 2 });
    await client.enqueue('email', {});
    await eventually(async () => (await client.get(approvalId))?.status === 'waiting', 15_000);
    await client.waitForResult(flakyId, { timeoutMs: 15_000 });
    await client.waitForResult(splitId, { timeoutMs: 15_000 });
  });
  after(async () => {
    await chrome?.close();
    await app?.close();
    await h?.close();
    await redis?.stop();
  });

  async function open(
    hash: string,
    size: { width: number; height: number },
    theme: 'light' | 'dark',
  ): Promise<{ page: Page; errors: string[] }> {
    for (const old of chrome.context.pages()) await old.close();
    const page = await chrome.context.newPage();
    const errors = collectPageErrors(page);
    await page.setViewportSize(size);
    await page.emulateMedia({ colorScheme: theme });
    await page.addInitScript(`localStorage.setItem('machinist.token', ${JSON.stringify(TOKEN)})`);
    await page.goto(`${url}/${hash}`);
    return { page, errors };
  }

  async function fitAll(page: Page): Promise<void> {
    for (const b of await page.locator('[data-chart-action="fit"]').all())
      if (await b.isVisible()) await b.click();
    await page.waitForTimeout(100);
  }

  const problems = (page: Page, scope?: string) =>
    page.evaluate<Problems>(`(${CHART_PROBLEMS})(${JSON.stringify(scope ?? null)})`);

  for (const size of SIZES)
    for (const theme of THEMES) {
      it(`fits every chart at ${size.width}x${size.height} (${theme}): states in view after Fit, no text overlapping, no label wider than its box`, async () => {
        const pages = [
          {
            hash: `#/job/${approvalId}`,
            name: 'approval',
            wait: '[data-state-id="approval.awaitingDecision"][data-active="true"]',
          },
          { hash: `#/job/${flakyId}`, name: 'flaky', wait: '[data-state-id="job.done"][data-active="true"]' },
          { hash: `#/job/${splitId}`, name: 'splitMerge', wait: '[data-child-chart] [data-state-id]' },
          { hash: '#/machines', name: 'machines', wait: '[data-machine="order@2"] [data-diff="renamed"]' },
        ];
        for (const p of pages) {
          const { page, errors } = await open(p.hash, size, theme);
          await page.locator(p.wait).first().waitFor(WAIT);
          await page.waitForTimeout(150);
          await fitAll(page);
          const found = await problems(page);
          assert.ok(found.charts > 0, `${p.name}: a chart is drawn`);
          assert.deepEqual(found.outside, [], `${p.name}: state boxes outside the viewport after Fit`);
          assert.deepEqual(found.overlaps, [], `${p.name}: texts overlapping`);
          assert.deepEqual(found.tooWide, [], `${p.name}: labels wider than their box`);
          // No chart wider than its card: the page never scrolls sideways.
          const overflow = await page.evaluate<number>(
            'document.documentElement.scrollWidth - window.innerWidth',
          );
          assert.ok(overflow <= 0, `${p.name}: page wider than the window by ${overflow}px`);
          // A legend under every chart.
          assert.equal(
            await page.locator('.chart').count(),
            await page.locator('.chart > .legend').count(),
            `${p.name}: a legend for each chart`,
          );
          await screenshot(page, `fit-${p.name}-${size.width}-${theme}`);
          assert.deepEqual(errors, []);
          await page.close();
        }
      });
    }

  it('zooms and pans with the buttons, the keyboard and the wheel; a zoomed chart says it shows a part', async () => {
    const { page, errors } = await open(`#/job/${approvalId}`, SIZES[0], 'light');
    await page.locator('[data-state-id="approval.awaitingDecision"][data-active="true"]').waitFor(WAIT);
    await page.waitForTimeout(150);
    const viewBox = async () =>
      (await page.locator('#chart svg.mc-chart[data-machine]').getAttribute('viewBox'))!
        .split(' ')
        .map(Number);
    await page.click('#chart [data-chart-action="fit"]');
    const fit = await viewBox();
    assert.equal(await page.locator('#chart .chart-hint').isVisible(), false, 'nothing to say at fit');
    await page.click('#chart [data-chart-action="zoom-in"]');
    const zoomed = await viewBox();
    assert.ok(
      zoomed[2]! < fit[2]! && zoomed[3]! < fit[3]!,
      `zoom in narrows the viewBox: ${fit.join(' ')} -> ${zoomed.join(' ')}`,
    );
    assert.equal(
      await page.locator('#chart .chart-hint').isVisible(),
      true,
      'a zoomed chart says it can move',
    );
    // Zoomed about the active state: it stays in view.
    const active = await page
      .locator('[data-state-id="approval.awaitingDecision"] > rect.mc-box')
      .boundingBox();
    const vp = await page.locator('#chart .chart-viewport').boundingBox();
    assert.ok(
      active && vp && active.x >= vp.x && active.x + active.width <= vp.x + vp.width,
      'active state in view',
    );
    await page.locator('#chart .chart-viewport').focus();
    await page.keyboard.press('ArrowRight');
    const panned = await viewBox();
    assert.ok(panned[0]! > zoomed[0]!, `ArrowRight pans right: ${zoomed.join(' ')} -> ${panned.join(' ')}`);
    await page.keyboard.press('+');
    assert.ok((await viewBox())[2]! < panned[2]!, '+ zooms in');
    await page.keyboard.press('-');
    await page.keyboard.press('-');
    assert.ok((await viewBox())[2]! > panned[2]!, '- zooms out');
    await page.keyboard.press('0');
    assert.deepEqual(await viewBox(), fit, '0 fits again');
    const box = (await page.locator('#chart .chart-viewport').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -300);
    await page.keyboard.up('Control');
    await page.waitForTimeout(100);
    assert.ok((await viewBox())[2]! < fit[2]!, 'ctrl+wheel (a pinch) zooms in');
    // A drag pans.
    const before = await viewBox();
    await page.mouse.move(box.x + 100, box.y + 100);
    await page.mouse.down();
    await page.mouse.move(box.x + 160, box.y + 130, { steps: 3 });
    await page.mouse.up();
    const dragged = await viewBox();
    assert.ok(
      dragged[0]! < before[0]! && dragged[1]! < before[1]!,
      `a drag pans: ${before.join(' ')} -> ${dragged.join(' ')}`,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('starts a narrow window on the path taken with the active state in view', async () => {
    const { page, errors } = await open(`#/job/${approvalId}`, SIZES[1], 'dark');
    await page.locator('[data-state-id="approval.awaitingDecision"][data-active="true"]').waitFor(WAIT);
    await page.waitForTimeout(200);
    const vp = (await page.locator('#chart .chart-viewport').boundingBox())!;
    for (const id of ['approval.requesting', 'approval.awaitingDecision']) {
      const b = (await page.locator(`[data-state-id="${id}"] > rect.mc-box`).boundingBox())!;
      assert.ok(
        b.x >= vp.x - 1 &&
          b.y >= vp.y - 1 &&
          b.x + b.width <= vp.x + vp.width + 1 &&
          b.y + b.height <= vp.y + vp.height + 1,
        `${id} in view at 420 px: ${JSON.stringify(b)} in ${JSON.stringify(vp)}`,
      );
    }
    // Its text is readable: the path is drawn larger than the whole chart would be.
    const font = await page
      .locator('[data-state-id="approval.awaitingDecision"] > text.mc-state-label')
      .boundingBox();
    assert.ok(font && font.height >= 10, `state label ${font?.height}px high`);
    await screenshot(page, 'path-approval-420-dark');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('starts a retried simple job at 420 px readable, about its active state, with no empty band', async () => {
    const { page, errors } = await open(`#/job/${flakyId}`, SIZES[1], 'light');
    await page.locator('[data-state-id="job.done"][data-active="true"]').waitFor(WAIT);
    await page.waitForTimeout(200);
    const vp = (await page.locator('#chart .chart-viewport').boundingBox())!;
    const done = (await page.locator('[data-state-id="job.done"] > rect.mc-box').boundingBox())!;
    assert.ok(
      done.x >= vp.x - 1 &&
        done.x + done.width <= vp.x + vp.width + 1 &&
        done.y + done.height <= vp.y + vp.height + 1,
      `the active state in view: ${JSON.stringify(done)} in ${JSON.stringify(vp)}`,
    );
    // Its whole path would be drawn at 37 %, labels 4 px high: a readable part of it instead.
    const label = (await page.locator('[data-state-id="job.done"] > text.mc-state-label').boundingBox())!;
    assert.ok(label.height >= 10, `state label ${label.height}px high`);
    // The chart (its root state's box, a layout's padding round it) fills the viewport: no band past an edge.
    const root = (await page.locator('[data-state-id="job"] > rect.mc-box').boundingBox())!;
    const pad = 20;
    assert.ok(
      vp.y >= root.y - pad && vp.y + vp.height <= root.y + root.height + pad,
      `no band above or below: ${JSON.stringify(vp)} on ${JSON.stringify(root)}`,
    );
    assert.ok(
      vp.x >= root.x - pad && vp.x + vp.width <= root.x + root.width + pad,
      `no band at the sides: ${JSON.stringify(vp)} on ${JSON.stringify(root)}`,
    );
    await screenshot(page, 'path-flaky-420');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('gives heat its own scale with a range, matches the legend to the states, and never fills a done state red', async () => {
    const { page, errors } = await open(`#/job/${splitId}`, SIZES[0], 'light');
    await page.locator('[data-child-chart] [data-state-id="job.done"][data-jobs="3"]').waitFor(WAIT);
    const [r, g, b] = await page.evaluate<number[]>(
      `(${RGB})(getComputedStyle(document.querySelector('[data-child-chart] [data-state-id="job.done"] > rect.mc-box')).fill)`,
    );
    assert.ok(!(r! > g! + 60 && r! > b! + 60), `done filled rgb(${r}, ${g}, ${b}): reads as a failure`);
    assert.ok(b! > g! && r! > g!, `heat is violet, not a status colour: rgb(${r}, ${g}, ${b})`);
    assert.equal(
      await page.locator('[data-child-chart] [data-legend-kind="heat"] [data-heat-max]').textContent(),
      '3',
    );
    // The legend's "visited" swatch is drawn as visited states are.
    const same = await page.evaluate<string[]>(`(() => {
      const st = (el) => { const s = getComputedStyle(el); return s.fill + ' ' + s.stroke; };
      const swatch = document.querySelector('#chart [data-legend="visited"] rect');
      const state = document.querySelector('#chart .mc-visited:not(.mc-active):not(.mc-compound) > rect.mc-box');
      return [st(swatch), st(state)];
    })()`);
    assert.equal(same[0], same[1], 'visited swatch and visited state');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('draws each machine once on the machines page, the lifecycle once for every simple job, and diffs two versions', async () => {
    const { page, errors } = await open('#/machines', SIZES[0], 'light');
    await page.locator('[data-machine="order@2"] [data-diff="renamed"]').waitFor(WAIT);
    const drawn = await page
      .locator('#main svg.mc-chart[data-machine]')
      .evaluateAll((els) =>
        els.map((e) => `${e.getAttribute('data-machine')}@${e.getAttribute('data-version')}`),
      );
    assert.equal(new Set(drawn).size, drawn.length, `a chart drawn twice: ${drawn.join(', ')}`);
    const lifecycles = drawn.filter((d) => /^(flaky|email|resize|countChunk)@/.test(d));
    assert.equal(lifecycles.length, 1, `the lifecycle drawn once: ${drawn.join(', ')}`);
    assert.deepEqual(
      drawn.filter((d) => d.startsWith('order@')).sort(),
      ['order@1', 'order@2'],
      'two versions side by side',
    );
    // Shown on the charts and listed.
    await page
      .locator('[data-machine="order@2"] [data-state-id="order.onHold"][data-diff="added"]')
      .waitFor(WAIT);
    await page
      .locator('[data-machine="order@1"] [data-state-id="order.giftWrap"][data-diff="removed"]')
      .waitFor(WAIT);
    await page
      .locator('[data-machine="order@1"] [data-state-id="order.packing"][data-diff="renamed"]')
      .waitFor(WAIT);
    assert.deepEqual(await page.locator('.diff-list li').allTextContents(), [
      '+ added order.onHold',
      '− removed order.giftWrap',
      '~ renamed order.packing → order.picking',
    ]);
    // Each heat legend gives its range: one approval waits; no order job runs.
    await page.locator('[data-machine="approval@1"] [data-heat-max]', { hasText: '1' }).waitFor(WAIT);
    assert.equal(await page.locator('[data-machine="order@2"] [data-heat-none]').isVisible(), true);
    assert.equal(await page.locator('[data-machine="order@2"] [data-heat-scale]').isVisible(), false);
    const height = await page.evaluate<number>('document.documentElement.scrollHeight');
    await screenshot(page, 'machines-fit');
    // Another job's lifecycle: the select changes whose jobs are counted, not the chart.
    await page.selectOption('[data-job-select]', 'email');
    await page.locator('[data-machine="email@1"] [data-state-id="job.done"]').waitFor(WAIT);
    // Versions picked: one version alone, no diff.
    await page.selectOption('[data-compare-select]', '');
    await page.locator('[data-machine-card="order"] .diff-list').waitFor({ state: 'detached', ...WAIT });
    assert.equal(await page.locator('[data-machine-card="order"] svg.mc-chart[data-machine]').count(), 1);
    assert.ok(height < 5600, `machines page ${height}px tall`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
