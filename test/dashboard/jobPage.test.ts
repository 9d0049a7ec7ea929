// The dashboard in a real browser (Debian's chromium through playwright-core) against a real
// server (createServer on a random loopback port), a real redis-server and a real Supervisor
// running the example machines. Screenshots go to test-artifacts/.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { approvalPipeline } from '../../machines/approval.js';
import { countChunk, splitMerge } from '../../machines/splitMerge.js';
import { createServer } from '../../src/http/createServer.js';
import type { Client } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { collectPageErrors, launchChromium, screenshot, type TestBrowser } from './support/browser.js';
import { layoutProblems, LAYOUTS } from './support/layout.js';

const TOKEN = 'dashboard-test-token';
const WAIT = { timeout: 30_000 };

describe('dashboard job page', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let url: string;
  let chrome: TestBrowser;
  let client: Client;
  const approval = approvalPipeline({
    notifyReviewer: async () => {},
    publish: async (d) => `https://docs/${d}`,
  });
  const jobs = [approval, splitMerge, countChunk];

  before(async () => {
    chrome = await launchChromium();
    redis = await startRedis();
    h = new Harness(redis);
    await h.started({ jobs });
    client = h.client({ jobs });
    app = createServer({
      store: h.store,
      jobs,
      tokens: [TOKEN],
      logger: false,
      dashboard: { actions: true },
    });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await chrome?.close();
    await app?.close();
    await h?.close();
    await redis?.stop();
  });

  async function open(hash: string): Promise<{ page: Page; errors: string[] }> {
    const page = await chrome.context.newPage();
    const errors = collectPageErrors(page);
    // Page scripts are strings: this file is compiled without the DOM's types.
    await page.addInitScript(`localStorage.setItem('machinist.token', ${JSON.stringify(TOKEN)})`);
    await page.goto(`${url}/${hash}`);
    return { page, errors };
  }

  it('lights the waiting state of a parked approval, sends APPROVE from the page and follows it to its final state without a reload', async () => {
    const id = await client.enqueue('approval', { documentId: 'doc-7' });
    await eventually(async () => (await client.get(id))?.status === 'waiting', 15_000);
    const { page, errors } = await open(`#/job/${id}`);

    const waiting = page.locator('[data-state-id="approval.awaitingDecision"]');
    await waiting.and(page.locator('[data-active="true"]')).waitFor(WAIT);
    assert.equal(await page.locator('[data-active="true"]').count(), 1, 'one state lit');
    assert.match((await waiting.getAttribute('aria-label')) ?? '', /awaitingDecision.*active/);
    // Visited states are marked with their counts, untaken ones dimmed.
    const requesting = page.locator('[data-state-id="approval.requesting"]');
    assert.equal(await requesting.getAttribute('data-visits'), '1');
    assert.match((await requesting.getAttribute('class')) ?? '', /mc-visited/);
    const published = page.locator('[data-state-id="approval.published"]');
    assert.equal(await published.getAttribute('data-visits'), '0');
    assert.match((await published.getAttribute('class')) ?? '', /mc-unvisited/);
    assert.equal(
      await page
        .locator('[data-edge-id][data-source="approval.requesting"][data-target="approval.awaitingDecision"]')
        .getAttribute('data-visits'),
      '1',
      'the transition taken is marked',
    );
    // What can happen next: exactly the events the waiting state accepts.
    assert.deepEqual(
      await page
        .locator('[data-next-event]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-next-event'))),
      ['APPROVE', 'REJECT'],
    );
    assert.deepEqual(await page.locator('select[name="type"] option').allTextContents(), [
      'APPROVE',
      'REJECT',
    ]);
    await page.locator('[data-timer]').first().waitFor(WAIT);
    await screenshot(page, 'approval-waiting');

    // The chart element is kept from here on: a marker on it must survive the live update.
    await page.evaluate(`document.querySelector('#chart svg').drawnOnce = true`);
    // Every text the header's live indicator shows from here on.
    await page.evaluate(`{
      const el = document.getElementById('live');
      window.liveTexts = [el.textContent];
      new MutationObserver(() => window.liveTexts.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
    }`);
    await page.selectOption('select[name="type"]', 'APPROVE');
    await page.fill('textarea[name="payload"]', '{"by": "reviewer@example.com"}');
    await page.click('button:has-text("Send event")');

    await page.locator('[data-state-id="approval.published"][data-active="true"]').waitFor(WAIT);
    await page.locator('[data-job-status="done"]').waitFor(WAIT);
    await page.locator('.next-events li', { hasText: 'Nothing: the job has finished.' }).waitFor(WAIT);
    assert.equal(await waiting.getAttribute('data-active'), null, 'the waiting state is no longer lit');
    assert.equal(await waiting.getAttribute('data-visits'), '1');
    assert.equal(
      await page.evaluate(`document.querySelector('#chart svg').drawnOnce`),
      true,
      'the chart was marked in place, not drawn again (and the page was not reloaded)',
    );
    const done = await client.get(id);
    assert.equal(done?.status, 'done');
    assert.deepEqual(done?.output, {
      outcome: 'published',
      by: 'reviewer@example.com',
      url: 'https://docs/doc-7',
    });
    await screenshot(page, 'approval-done');
    // The job's stream ended because the job did, not because the connection failed: the header
    // never says "reconnecting…" (a reconnect would have come 500 ms after the end).
    await page.waitForTimeout(1500);
    const texts = await page.evaluate<string[]>('window.liveTexts');
    assert.ok(!texts.includes('reconnecting…'), `the live indicator showed: ${texts.join(' → ')}`);

    // The scrubber shows the chart as it was after an earlier entry.
    const parkedAt = await page
      .locator('.timeline li')
      .evaluateAll((lis) => lis.findIndex((li) => li.textContent?.includes('parked')));
    await page.locator(`.timeline li[data-entry="${parkedAt}"]`).click();
    await page.locator('[data-state-id="approval.awaitingDecision"][data-active="true"]').waitFor(WAIT);
    assert.equal(await published.getAttribute('data-visits'), '0', 'published not yet entered at that entry');
    // ... and the context as it was then: no decision yet, nothing published.
    const context = page.locator('details[data-json="context"]');
    await context.filter({ hasText: '"decidedBy": null' }).waitFor(WAIT);
    assert.doesNotMatch((await context.textContent()) ?? '', /https:\/\/docs/);
    await page.locator('.notice', { hasText: 'the context as the job entered the state' }).waitFor(WAIT);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('lays out a parked approval and a finished fan-out at 1280x800 and 420x800, light and dark: no text over another, nothing past the window', async () => {
    const approvalId = await client.enqueue('approval', { documentId: 'doc-layout' });
    const fanOutId = await client.enqueue('splitMerge', { text: 'a b c d e f g h', chunkWords: 3 });
    await eventually(async () => (await client.get(approvalId))?.status === 'waiting', 15_000);
    await client.waitForResult(fanOutId, { timeoutMs: 15_000 });
    const jobs = [
      { id: approvalId, ready: '[data-timer]' },
      { id: fanOutId, ready: '[data-child-chart] [data-jobs="3"]' },
    ];
    for (const l of LAYOUTS)
      for (const j of jobs) {
        const { page, errors } = await open(`#/job/${j.id}`);
        await page.setViewportSize({ width: l.width, height: l.height });
        await page.emulateMedia({ colorScheme: l.colorScheme });
        await page.locator(j.ready).first().waitFor(WAIT);
        await page.waitForTimeout(200);
        const p = await layoutProblems(page);
        const at = `job ${j.id} at ${l.width}x${l.height} ${l.colorScheme}`;
        assert.deepEqual(p.overlaps, [], `${at}: texts overlap`);
        assert.deepEqual(p.outside, [], `${at}: outside the window`);
        assert.equal(p.pageScrollsSideways, false, `${at}: the page scrolls sideways`);
        await screenshot(
          page,
          `job-layout-${j.id === approvalId ? 'approval' : 'fanout'}-${l.width}-${l.colorScheme}`,
        );
        assert.deepEqual(errors, []);
        await page.close();
      }
  });

  it('cancels a fan-out parent from the page and shows its children turn cancelled', async () => {
    // The chunks go to a queue no worker serves: the parent stays parked on its children.
    const id = await client.enqueue('splitMerge', {
      text: 'a b c d e f',
      chunkWords: 2,
      chunkQueue: 'chunks',
    });
    await eventually(async () => {
      const rec = await client.get(id);
      return rec?.status === 'waiting' && rec.children?.total === 3;
    }, 15_000);
    const { page, errors } = await open(`#/job/${id}`);
    await page.locator('[data-child-id][data-status="queued"]').nth(2).waitFor(WAIT);
    assert.equal(await page.locator('[data-child-id]').count(), 3);
    await page.locator('[data-state-id="splitMerge.counting"][data-active="true"]').waitFor(WAIT);

    const cancel = page.locator('button[data-action="cancel"]');
    await cancel.click();
    await cancel.click(); // the second click confirms
    await page.locator('[data-job-status="cancelled"]').waitFor(WAIT);
    await page.locator('.next-events li', { hasText: 'Nothing: the job has finished.' }).waitFor(WAIT);
    await page.locator('[data-child-id][data-status="cancelled"]').nth(2).waitFor(WAIT);
    // The parent no longer runs in the state it was cancelled in: marked stopped, not lit.
    const counting = page.locator('[data-state-id="splitMerge.counting"]');
    await counting.and(page.locator('[data-stopped="true"]')).waitFor(WAIT);
    assert.equal(await page.locator('[data-active="true"]').count(), 0, 'no state lit as running');
    assert.match((await counting.getAttribute('aria-label')) ?? '', /stopped here \(cancelled\)/);
    assert.equal(await page.locator('[data-child-id][data-status="queued"]').count(), 0);
    for (const c of (await client.get(id))?.children?.jobs ?? []) {
      assert.equal((await client.get(c.id, { queue: c.queue }))?.status, 'cancelled', `child ${c.id}`);
    }
    await screenshot(page, 'fanout-cancelled');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('draws the queues overview, the jobs list and every machine with its heat map', async () => {
    const { page, errors } = await open('#/');
    await page.locator('[data-queue="default"] [data-count="done"]').waitFor(WAIT);
    // A queue younger than the window: its events reach back to its start, nothing was lost.
    const summary = (await page.locator('[data-queue="default"] p.muted').textContent()) ?? '';
    assert.match(summary, /^\d+ done, \d+ failed in 15 min( \(events held since [^)]+\))?$/, summary);
    await screenshot(page, 'overview');
    await page.goto(`${url}/#/jobs?queue=default&machine=approval`);
    await page.locator('tr[data-job-id]').first().waitFor(WAIT);
    await page.goto(`${url}/#/machines`);
    await page
      .locator('[data-machine="approval@1"] [data-state-id="approval.awaitingDecision"]')
      .waitFor(WAIT);
    await page.locator('[data-machine="splitMerge@1"] [data-jobs]').first().waitFor(WAIT);
    await page.locator('[data-machine="approval@1"] .heat-label').first().waitFor(WAIT);
    // Each dwell-time line sits inside its state's box, below the state's name and its steps.
    const misplaced = await page.evaluate<
      string[]
    >(`[...document.querySelectorAll('.heat-label')].flatMap((t) => {
      const g = t.parentElement, box = g.querySelector(':scope > rect.mc-box').getBBox(), b = t.getBBox();
      const above = [...g.querySelectorAll(':scope > text:not(.heat-label)')].map((x) => x.getBBox());
      const inside = b.x >= box.x && b.x + b.width <= box.x + box.width && b.y + b.height <= box.y + box.height + 1;
      const clear = above.every((a) => a.y + a.height <= b.y + 1);
      return inside && clear ? [] : [g.dataset.stateId + ': ' + t.textContent];
    })`);
    assert.deepEqual(misplaced, [], 'dwell lines that overflow their box or cover its text');
    await screenshot(page, 'machines');
    // A narrow window keeps every panel reachable (no horizontal page scroll).
    await page.setViewportSize({ width: 420, height: 800 });
    await page.goto(`${url}/#/jobs`);
    await page.locator('tr[data-job-id]').first().waitFor(WAIT);
    const overflow = await page.evaluate<number>(`document.documentElement.scrollWidth - window.innerWidth`);
    assert.ok(overflow <= 0, `page wider than the window by ${overflow}px`);
    await screenshot(page, 'jobs-narrow');
    assert.deepEqual(errors, []);
    await page.close();

    // Opened directly, a page that follows no stream says so (not "offline", as if broken).
    const fresh = await open('#/machines');
    await fresh.page.locator('[data-machine]').first().waitFor(WAIT);
    assert.equal(await fresh.page.locator('#live').textContent(), 'not following');
    await fresh.page.close();
  });
});
