// Debian's chromium driven by playwright-core, headless, with a fresh profile per launch. CI
// installs chromium (.ci/run); when it is missing the test fails with one line saying how.

import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

export interface TestBrowser {
  /** One context on a fresh profile directory (removed by close). */
  context: BrowserContext;
  close(): Promise<void>;
}

/** `hasTouch`: the page gets touch events (a phone's); a test sends them over CDP (Input.dispatchTouchEvent). */
export async function launchChromium(options: { hasTouch?: boolean } = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `chromium not found at ${CHROMIUM}: install it with "sudo apt-get install -y chromium" (or set CHROMIUM_PATH)`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'machinist-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    hasTouch: options.hasTouch ?? false,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot under test-artifacts/ (kept by CI as the test's artifacts). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Fails the test on any error the page logs or throws (a broken script must not pass quietly). */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  return errors;
}
