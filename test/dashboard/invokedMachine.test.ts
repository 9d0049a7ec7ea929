// An invoked child machine drawn as its own chart on the job page, its current state lit from
// the job's snapshot (a real browser, server, redis-server and Supervisor).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { sendTo, setup } from 'xstate';
import { createServer } from '../../src/http/createServer.js';
import { definePipeline, type Client } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { collectPageErrors, launchChromium, screenshot, type TestBrowser } from './support/browser.js';

const TOKEN = 'invoked-test-token';
const WAIT = { timeout: 30_000 };

const helper = setup({}).createMachine({
  id: 'helper',
  initial: 'idle',
  states: { idle: { on: { GO: 'busy' } }, busy: { on: { FINISH: 'done' } }, done: { type: 'final' } },
});
const parentFlow = definePipeline({
  name: 'parentFlow',
  machine: setup({ actors: { helper } }).createMachine({
    id: 'parentFlow',
    initial: 'running',
    states: {
      running: {
        invoke: { id: 'worker', src: 'helper', onDone: 'finished' },
        on: {
          GO: { actions: sendTo('worker', { type: 'GO' }) },
          FINISH: { actions: sendTo('worker', { type: 'FINISH' }) },
        },
      },
      finished: { type: 'final' },
    },
  }),
});

describe('dashboard: invoked child machines', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let url: string;
  let chrome: TestBrowser;
  let client: Client;

  before(async () => {
    chrome = await launchChromium();
    redis = await startRedis();
    h = new Harness(redis);
    await h.started({ jobs: [parentFlow] });
    client = h.client({ jobs: [parentFlow] });
    app = createServer({ store: h.store, jobs: [parentFlow], tokens: [TOKEN], logger: false });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await chrome?.close();
    await app?.close();
    await h?.close();
    await redis?.stop();
  });

  it("draws the invoked machine's own chart with its state lit, and follows it live", async () => {
    const id = await client.enqueue('parentFlow', null);
    await eventually(async () => (await client.get(id))?.status === 'waiting', 15_000);
    const page = await chrome.context.newPage();
    const errors = collectPageErrors(page);
    await page.addInitScript(`localStorage.setItem('machinist.token', ${JSON.stringify(TOKEN)})`);
    await page.goto(`${url}/#/job/${id}`);

    const invoked = page.locator('[data-invoked="parentFlow.running:worker"]');
    await invoked.locator('[data-state-id="helper.idle"][data-active="true"]').waitFor(WAIT);
    assert.equal(await invoked.locator('[data-state-id]').count(), 4, 'the root and its three states');
    assert.match((await invoked.textContent()) ?? '', /worker/);
    await client.send(id, { type: 'GO' });
    await invoked.locator('[data-state-id="helper.busy"][data-active="true"]').waitFor(WAIT);
    assert.equal(await invoked.locator('[data-state-id="helper.idle"]').getAttribute('data-active'), null);
    await screenshot(page, 'invoked-machine');
    await client.send(id, { type: 'FINISH' });
    await page.locator('[data-job-status="done"]').waitFor(WAIT);
    await eventually(async () => (await invoked.locator('[data-active="true"]').count()) === 0, 15_000);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
