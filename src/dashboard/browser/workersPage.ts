// The fleet (GET /workers): a card per supervisor with its host, pid, version, queues,
// concurrency, jobs running now, heartbeat age and what it runs; a gone one (it stopped
// heartbeating) with the jobs the reaper took back from it. Refreshed every 2 s: heartbeat ages
// are the point of the page, and one small route is cheaper than following every queue.

import { getJson } from './api.js';
import { h, notice, statusBadge } from './dom.js';
import { duration, time } from './format.js';
import type { Page } from './page.js';
import type { FleetWorker } from './types.js';

export async function workersPage(page: Page): Promise<void> {
  const body = h('div', { class: 'cards' });
  page.root.replaceChildren(h('h1', {}, 'Workers'), body);
  const load = async () => {
    try {
      const { workers } = await getJson<{ workers: FleetWorker[] }>('/workers');
      if (page.left) return;
      body.replaceChildren(
        ...(workers.length === 0
          ? [notice('No supervisor has announced itself in the last hour.')]
          : workers.map(card)),
      );
    } catch (err) {
      if (!page.left) body.replaceChildren(notice((err as Error).message, 'error'));
    }
  };
  const tick = setInterval(() => void load(), 2000);
  page.onLeave(() => clearInterval(tick));
  await load();
}

const jobLink = (id: string) => h('a', { class: 'mono wrap', href: `#/job/${encodeURIComponent(id)}` }, id);

function card(w: FleetWorker): HTMLElement {
  const fact = (name: string, value: string | Node, col: string) =>
    h('div', {}, h('dt', {}, name), h('dd', { 'data-col': col }, value));
  const facts = h(
    'dl',
    { class: 'facts' },
    fact('host', w.host, 'host'),
    fact('pid', String(w.pid), 'pid'),
    fact('version', w.version, 'version'),
    fact('queues', w.queues.join(', '), 'queues'),
    // A gone worker runs nothing now: what it last reported is kept only as that.
    fact(
      'running',
      w.status === 'live'
        ? `${w.runningCount} / ${w.concurrency}`
        : `none (last reported ${w.runningCount} / ${w.concurrency})`,
      'running',
    ),
    fact('heartbeat', `${duration(w.heartbeatAgeMs)} ago`, 'heartbeat'),
    fact('started', time(w.startedAt), 'started'),
  );
  const running =
    w.status === 'live' && w.running.length > 0
      ? h(
          'div',
          { 'data-running': '' },
          h('h3', {}, 'Running'),
          h(
            'ul',
            { class: 'plain' },
            w.running.map((r) => h('li', {}, jobLink(r.id), ` ${r.machine ?? ''}`)),
          ),
        )
      : null;
  const reaped =
    w.reaped.length > 0
      ? h(
          'div',
          { 'data-reaped': '' },
          h('h3', {}, `Taken back by the reaper (${w.reaped.length})`),
          h(
            'ul',
            { class: 'plain' },
            w.reaped.map((r) =>
              h('li', { 'data-reaped-id': r.id }, jobLink(r.id), ` ${r.outcome} ${time(r.at)}`),
            ),
          ),
        )
      : null;
  return h(
    'section',
    { class: 'panel', 'data-worker-id': w.workerId, 'data-worker-status': w.status },
    h('h2', { class: 'wrap' }, statusBadge(w.status), ' ', h('span', { class: 'mono' }, w.workerId)),
    facts,
    running,
    reaped,
  );
}
