// The dashboard's entry: theme, token, and the hash router that mounts one page at a time
// (leaving a page closes its streams and timers).

import { DASH, getJson, setToken, token } from './api.js';
import { notice } from './dom.js';
import { jobPage } from './jobPage.js';
import { jobsPage, type Meta } from './jobsPage.js';
import { machinePage } from './machinePage.js';
import { overviewPage } from './overviewPage.js';
import { schedulesPage } from './schedulesPage.js';
import { findPage } from './findPage.js';
import { workersPage } from './workersPage.js';
import type { Page } from './page.js';
import { closeAllSse } from './sse.js';
import { initTheme } from './theme.js';
import type { Config } from './types.js';

const main = document.getElementById('main')!;
let current: { leave(): void } | null = null;

initTheme(document.getElementById('theme'));
document.getElementById('token')?.addEventListener('click', () => {
  const value = prompt('Bearer token for the API (empty to forget it):', token() ?? '');
  if (value === null) return;
  setToken(value.trim() || null);
  void route();
});

function newPage(): Page & { leave(): void } {
  const cleanups: (() => void)[] = [];
  const root = document.createElement('div');
  main.replaceChildren(root);
  const page = {
    root,
    left: false,
    onLeave: (fn: () => void) => void cleanups.push(fn),
    leave() {
      page.left = true;
      for (const fn of cleanups.splice(0)) fn();
    },
  };
  return page;
}

async function route(): Promise<void> {
  current?.leave();
  closeAllSse();
  const page = newPage();
  current = page;
  const [path = '/', query = ''] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query);
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  try {
    const config = await getJson<Config & Meta>(`${DASH}/config`);
    document.title = `${config.title}${parts[0] ? ` · ${parts[0]}` : ''}`;
    if (parts[0] === 'job' && parts[1]) await jobPage(page, parts[1]);
    else if (parts[0] === 'jobs') await jobsPage(page, params, config);
    else if (parts[0] === 'machines') await machinePage(page, config);
    else if (parts[0] === 'schedules') await schedulesPage(page, config);
    else if (parts[0] === 'find') await findPage(page, params, config);
    else if (parts[0] === 'workers') await workersPage(page);
    else if (parts[0] === 'machine' && parts[1])
      await machinePage(page, config, { name: parts[1], version: parts[2] ? Number(parts[2]) : undefined });
    else await overviewPage(page, config);
  } catch (err) {
    if (!page.left) page.root.replaceChildren(notice((err as Error).message, 'error'));
  }
}

window.addEventListener('hashchange', () => void route());
void route();
