// A table of jobs (the Jobs and Find pages). On a wide window it is a table; on a narrow one
// each row is a card (styles.css, "Rows as cards"): the id on its own line, then each field
// under its own label (its `data-label`), so nothing is squeezed into a column or hidden past a
// scroll edge.

import { h, notice, statusBadge } from './dom.js';
import { stateText, time } from './format.js';
import type { Job } from './types.js';

const COLUMNS = ['id', 'status', 'machine', 'state', 'attempts', 'created', 'updated'] as const;
type Column = (typeof COLUMNS)[number];

function cell(col: Column, ...content: (Node | string)[]): HTMLTableCellElement {
  return h(
    'td',
    col === 'id' ? { 'data-col': col, class: 'wide' } : { 'data-col': col, 'data-label': col },
    ...content,
  );
}

export function jobsTable(jobs: Job[]): HTMLElement {
  if (jobs.length === 0) return notice('No jobs match.');
  return h(
    'table',
    { class: 'jobs-table row-cards' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        COLUMNS.map((c) => h('th', {}, c)),
      ),
    ),
    h(
      'tbody',
      {},
      jobs.map((j) =>
        h(
          'tr',
          { 'data-job-id': j.id },
          cell('id', h('a', { href: `#/job/${encodeURIComponent(j.id)}`, class: 'mono' }, j.id)),
          cell('status', statusBadge(j.status)),
          cell('machine', `${j.machine}@${j.version}`),
          cell('state', stateText(j.state)),
          cell('attempts', `${j.attempts}/${j.maxAttempts}`),
          cell('created', time(j.createdAt)),
          cell('updated', time(j.updatedAt)),
        ),
      ),
    ),
  );
}
