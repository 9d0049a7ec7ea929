// Jobs list: filters (status, machine, queue, parent), lookup by id, paging with the store's
// cursors, refreshed live from the queue's event stream.

import { getJson, qs } from './api.js';
import { h, notice } from './dom.js';
import { jobsTable } from './jobsTable.js';
import type { Page } from './page.js';
import { openSse, throttle } from './sse.js';
import type { Config, Job } from './types.js';

const STATUSES = ['', 'queued', 'loading', 'working', 'waiting', 'done', 'failed', 'cancelled'];

export async function jobsPage(page: Page, params: URLSearchParams, config: Config & Meta): Promise<void> {
  const f = {
    queue: params.get('queue') ?? config.queues[0] ?? 'default',
    status: params.get('status') ?? '',
    machine: params.get('machine') ?? '',
    parentId: params.get('parentId') ?? '',
  };
  const cursors: (string | null)[] = [null];
  const table = h('div', { class: 'table-scroll' });
  const pager = h('div', { class: 'actions' });
  const select = (name: keyof typeof f, options: string[]) =>
    h(
      'select',
      { name, 'aria-label': name },
      options.map((o) => h('option', { value: o, selected: o === f[name] }, o || 'any')),
    );
  const form = h(
    'form',
    { class: 'filters', role: 'search' },
    h('label', {}, 'Queue', select('queue', uniq([f.queue, ...config.queues]))),
    h('label', {}, 'Status', select('status', STATUSES)),
    h(
      'label',
      {},
      'Machine',
      select('machine', uniq(['', f.machine, ...config.machines.map((m) => m.name)])),
    ),
    h(
      'label',
      {},
      'Parent id',
      h('input', { name: 'parentId', value: f.parentId, placeholder: 'any', size: 28 }),
    ),
    h('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const d = new FormData(form);
    location.hash = `#/jobs${qs(Object.fromEntries([...d.entries()].map(([k, v]) => [k, typeof v === 'string' ? v : ''])))}`;
  });
  const lookup = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Look up a job by id' },
    h('label', {}, 'Job id', h('input', { name: 'id', required: true, size: 34, placeholder: '01J…' })),
    h('button', { type: 'submit', class: 'ghost' }, 'Open'),
  );
  lookup.addEventListener('submit', (e) => {
    e.preventDefault();
    const value = new FormData(lookup).get('id');
    const id = typeof value === 'string' ? value.trim() : '';
    if (id) location.hash = `#/job/${encodeURIComponent(id)}`;
  });
  page.root.replaceChildren(h('h1', {}, 'Jobs'), lookup, form, table, pager);

  const load = async () => {
    const cursor = cursors[cursors.length - 1] ?? undefined;
    try {
      const res = await getJson<{ jobs: Job[]; cursor: string | null }>(
        `/jobs${qs({ ...f, cursor, limit: 50 })}`,
      );
      if (page.left) return;
      table.replaceChildren(jobsTable(res.jobs));
      pager.replaceChildren(
        h(
          'button',
          { class: 'ghost', type: 'button', disabled: cursors.length < 2, onclick: () => void back() },
          '← Newer',
        ),
        h('span', { class: 'muted' }, `page ${cursors.length}`),
        h(
          'button',
          { class: 'ghost', type: 'button', disabled: !res.cursor, onclick: () => void next(res.cursor) },
          'Older →',
        ),
      );
    } catch (err) {
      if (!page.left) table.replaceChildren(notice((err as Error).message, 'error'));
    }
  };
  const next = async (c: string | null) => {
    cursors.push(c);
    await load();
  };
  const back = async () => {
    cursors.pop();
    await load();
  };
  const refresh = throttle(() => void load(), 1000);
  const sse = openSse(`/events?queue=${encodeURIComponent(f.queue)}`, refresh);
  page.onLeave(() => sse.close());
  await load();
}

export interface Meta {
  queues: string[];
  /** `kind` of the newest version's chart: `job` for a simple job (the shared lifecycle). */
  machines: { name: string; versions: number[]; kind: 'job' | 'pipeline' | 'machine' | null }[];
}

function uniq(list: string[]): string[] {
  return [...new Set(list)];
}
