// Find any job (GET /jobs/search): id prefix, queue, machine, status, state, time range and field
// filters ('input.orderId = 42', one per line), answered a bounded scan at a time; "Load more"
// continues from the cursor, and the line under the table says how many records were read.
// The filters live in the URL (#/find?...), so a search can be shared and reloaded.

import { getJson } from './api.js';
import { h, notice } from './dom.js';
import type { Meta } from './jobsPage.js';
import { jobsTable } from './jobsTable.js';
import type { Page } from './page.js';
import type { Config, Job, SearchPage } from './types.js';

const STATUSES = ['', 'queued', 'loading', 'working', 'waiting', 'done', 'failed', 'cancelled'];
const FIELDS = ['idPrefix', 'queue', 'machine', 'status', 'state', 'createdFrom', 'createdTo'] as const;

/** A datetime-local value (the browser's zone) as ms, or undefined. */
const ms = (v: string | null): string | undefined => {
  const t = v ? Date.parse(v) : NaN;
  return Number.isFinite(t) ? String(t) : undefined;
};

export async function findPage(page: Page, params: URLSearchParams, config: Config & Meta): Promise<void> {
  const get = (k: string) => params.get(k) ?? '';
  const where = params.getAll('where').filter((w) => w.trim() !== '');
  const select = (name: string, options: string[]) =>
    h(
      'select',
      { name, 'aria-label': name },
      options.map((o) => h('option', { value: o, selected: o === get(name) }, o || 'any')),
    );
  const field = (label: string, input: HTMLElement) => h('label', {}, label, input);
  const form = h(
    'form',
    { class: 'filters find', role: 'search', 'aria-label': 'Find jobs' },
    field(
      'Id prefix',
      h('input', { name: 'idPrefix', value: get('idPrefix'), placeholder: '01J…', size: 16 }),
    ),
    field('Queue', select('queue', ['', ...config.queues])),
    field('Machine', select('machine', ['', ...config.machines.map((m) => m.name)])),
    field('Status', select('status', STATUSES)),
    field(
      'State',
      h('input', { name: 'state', value: get('state'), placeholder: 'review.waiting', size: 14 }),
    ),
    field(
      'Created from',
      h('input', { name: 'createdFrom', type: 'datetime-local', value: get('createdFrom') }),
    ),
    field('Created to', h('input', { name: 'createdTo', type: 'datetime-local', value: get('createdTo') })),
    field(
      'Fields (one per line)',
      h(
        'textarea',
        { name: 'where', rows: 2, cols: 28, placeholder: 'input.orderId = 42\noutput.total > 100' },
        where.join('\n'),
      ),
    ),
    h('button', { type: 'submit' }, 'Find'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const d = new FormData(form);
    const q = new URLSearchParams();
    for (const k of FIELDS) {
      const v = d.get(k);
      if (typeof v === 'string' && v.trim() !== '') q.set(k, v.trim());
    }
    const lines = d.get('where');
    for (const line of typeof lines === 'string' ? lines.split('\n') : [])
      if (line.trim() !== '') q.append('where', line.trim());
    location.hash = `#/find?${q.toString()}`;
  });
  const results = h('div', { class: 'table-scroll' });
  const status = h('p', { class: 'muted', 'data-find-status': '' });
  const more = h('div', { class: 'actions' });
  page.root.replaceChildren(h('h1', {}, 'Find jobs'), form, results, status, more);

  // The query the API is asked: the form's fields, times as ms.
  const query = new URLSearchParams();
  for (const k of ['idPrefix', 'queue', 'machine', 'status', 'state'])
    if (get(k) !== '') query.set(k, get(k));
  for (const k of ['createdFrom', 'createdTo']) {
    const t = ms(params.get(k));
    if (t) query.set(k, t);
  }
  for (const w of where) query.append('where', w);

  const found: Job[] = [];
  let scanned = 0;
  const load = async (cursor: string | null) => {
    const q = new URLSearchParams(query);
    if (cursor) q.set('cursor', cursor);
    more.replaceChildren();
    try {
      const res = await getJson<SearchPage>(`/jobs/search?${q.toString()}`);
      if (page.left) return;
      found.push(...res.jobs);
      scanned += res.scanned;
      results.replaceChildren(jobsTable(found));
      status.textContent = `${found.length} found, ${scanned} records read${res.cursor ? ' (more to scan)' : ''}`;
      if (res.cursor) {
        const next = res.cursor;
        more.replaceChildren(
          h(
            'button',
            { type: 'button', class: 'ghost', 'data-action': 'more', onclick: () => void load(next) },
            'Load more',
          ),
        );
      }
    } catch (err) {
      if (!page.left) results.replaceChildren(notice((err as Error).message, 'error'));
    }
  };
  await load(null);
}
