// Writes docs/dashboard.png, the README's picture of the dashboard: the overview (#/) at
// 1280x800 with its queue charts filled. `npx tsx scripts/dashboard-screenshot.ts [out.png]`
// (Debian's chromium, or CHROMIUM_PATH). The charts span 15 minutes, which nobody waits for:
// the store here is a MemoryStore on a clock set back, one minute at a time, while the demo's
// jobs (machines/demo.ts) run and end, so each minute holds real endings with real wait and run
// times. Then the clock runs on and `machinist dev`'s seed runs at human pace (a
// parked approval, a fan-out in progress, a webhook in its backoff, the schedule), as a person
// opening the dashboard a few seconds later sees it.

import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { chromium } from 'playwright-core';
import { devJobs, devSchedules, devSeed } from '../machines/demo.js';
import { Client } from '../src/client/Client.js';
import { createServer } from '../src/http/createServer.js';
import { MemoryStore } from '../src/store/memory/MemoryStore.js';
import { Supervisor } from '../src/supervisor/Supervisor.js';

const MINUTES = 14;
const TOKEN = 'screenshot';
const out = process.argv[2] ?? fileURLToPath(new URL('../docs/dashboard.png', import.meta.url));

let offset = 0;
const store = new MemoryStore({ now: () => Date.now() + offset });
const supervisor = new Supervisor({
  store,
  jobs: devJobs,
  concurrency: 3,
  logger: pino({ level: process.env.MACHINIST_LOG ?? 'error' }),
});
const client = new Client({ store, jobs: devJobs });

/** One minute's work: a burst of the demo's jobs (some cards declined), every one ended. */
async function minuteOfWork(minute: number): Promise<void> {
  const n = 4 + ((minute * 7) % 9);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = (minute + i) % 4;
    const declined = (minute * 3 + i) % 7 === 0;
    ids.push(
      kind === 0
        ? await client.enqueue('resize-image' as never, { image: `photos/${minute}-${i}.jpg`, width: 640 })
        : kind === 1
          ? await client.enqueue('send-email' as never, { to: `user${i}@example.com`, template: 'welcome' })
          : await client.enqueue('charge-card' as never, {
              customer: `c${i}`,
              card: declined ? '4000000000000002' : '4242424242424242',
              cents: 100 * (i + 1),
            }),
    );
  }
  // A fan-out whose children take a second or two: run and wait times of seconds, not ms.
  ids.push(
    await client.enqueue('splitMerge' as never, {
      text: 'the quick brown fox jumps over the lazy dog '.repeat(2 + (minute % 3)),
      chunkWords: 6,
      chunkMs: 400 + (minute % 5) * 350,
    }),
  );
  for (const id of ids) await client.waitForResult(id, { timeoutMs: 30_000 }).catch(() => undefined);
}

await supervisor.start();
try {
  // Each minute's burst starts 5 s into its minute (so it stays in it); afterwards the clock goes
  // on from the last minute, behind the real one by the time the bursts took.
  const base = Math.floor(Date.now() / 60_000) * 60_000 + 5_000;
  for (let m = MINUTES; m >= 1; m--) {
    offset = base - m * 60_000 - Date.now();
    await minuteOfWork(m);
  }
  offset = base - Date.now();
  const app = createServer({
    store,
    jobs: devJobs,
    tokens: [TOKEN],
    logger: false,
    dashboard: { actions: true, title: 'Machinist' },
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  for (const s of devSeed) await client.enqueue(s.machine as never, s.input);
  for (const s of devSchedules) await client.schedule(s.id, s.spec);
  await sleep(7_000);

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  await page.addInitScript(`localStorage.setItem('machinist.token', ${JSON.stringify(TOKEN)})`);
  await page.goto(`${url}/#/`);
  await page.locator('[data-series-queue] svg').first().waitFor({ timeout: 15_000 });
  await page.waitForTimeout(1_000);
  await page.screenshot({ path: out });
  await browser.close();
  await app.close();
  console.log(`wrote ${out}`);
} finally {
  await supervisor.stop();
  client.close();
  await store.close();
}
