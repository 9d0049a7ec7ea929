// Schedules (docs/schedules.md): each schedule with its text (cronstrue, from the API), its next
// ticks (the first counting down), its last result (the last tick's job, linked, with its status)
// and a pause/resume button; refreshed every few seconds (ticks are seconds apart at the finest,
// so polling the one list route is cheaper than following every queue).

import { getJson, postJson } from './api.js';
import { h, notice, statusBadge } from './dom.js';
import { duration, time } from './format.js';
import type { Page } from './page.js';
import type { Config } from './types.js';

/** A schedule as GET /schedules answers it (the fields this page shows). */
interface Schedule {
  id: string;
  text: string;
  nextTicks: number[];
  paused: boolean;
  note: string | null;
  spec: { machine: string; queue: string; overlap: string };
  lastJob: { id: string; queue: string; at: number } | null;
  started: number;
  skipped: number;
  missed: number;
}

export async function schedulesPage(page: Page, config: Config): Promise<void> {
  const body = h('div', { class: 'table-scroll' });
  page.root.replaceChildren(h('h1', {}, 'Schedules'), body);
  const load = async () => {
    try {
      const { schedules } = await getJson<{ schedules: Schedule[] }>('/schedules');
      const results = await lastResults(schedules);
      if (page.left) return;
      body.replaceChildren(
        schedules.length === 0
          ? notice('No schedules yet.')
          : table(schedules, results, load, config.readOnly),
      );
      countDown();
    } catch (err) {
      if (!page.left) body.replaceChildren(notice((err as Error).message, 'error'));
    }
  };
  const tick = setInterval(() => void load(), 5000);
  const second = setInterval(countDown, 1000);
  page.onLeave(() => {
    clearInterval(tick);
    clearInterval(second);
  });
  await load();
}

/** Schedules whose last job's status is read per refresh at most (one GET /jobs/:id each). */
const RESULTS_READ = 50;

/** The status of each schedule's last job, by schedule id; null when the job is gone (swept). */
async function lastResults(list: Schedule[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  await Promise.all(
    list
      .filter((s) => s.lastJob)
      .slice(0, RESULTS_READ)
      .map(async (s) => {
        const j = s.lastJob!;
        try {
          const job = await getJson<{ status: string }>(
            `/jobs/${encodeURIComponent(j.id)}?queue=${encodeURIComponent(j.queue)}`,
          );
          out.set(s.id, job.status);
        } catch {
          out.set(s.id, null);
        }
      }),
  );
  return out;
}

/** Each `[data-countdown]` says how long until its instant (this browser's clock; the next read corrects it). */
function countDown(): void {
  for (const el of document.querySelectorAll<HTMLElement>('[data-countdown]')) {
    const left = Number(el.dataset.countdown) - Date.now();
    el.textContent = left > 0 ? ` (in ${duration(Math.ceil(left / 1000) * 1000)})` : ' (due)';
  }
}

/** The last tick's job: linked, with its status and when it started. */
function lastResult(s: Schedule, status: string | null | undefined): (Node | string)[] | string {
  if (!s.lastJob) return '-';
  return [
    h('a', { href: `#/job/${encodeURIComponent(s.lastJob.id)}`, class: 'mono' }, s.lastJob.id),
    ' ',
    status === undefined ? '' : status === null ? h('span', { class: 'muted' }, 'gone') : statusBadge(status),
    h('span', { class: 'muted' }, ` ${time(s.lastJob.at)}`),
  ];
}

/** `readOnly`: no pause/resume button (the dashboard offers no actions; the API decides anyway). */
function table(
  list: Schedule[],
  results: Map<string, string | null>,
  reload: () => Promise<void>,
  readOnly: boolean,
): HTMLElement {
  const toggle = (s: Schedule) => (e: Event) => void flip(s, e);
  const flip = async (s: Schedule, e: Event) => {
    const button = e.currentTarget as HTMLButtonElement;
    button.disabled = true;
    try {
      await postJson(`/schedules/${encodeURIComponent(s.id)}/${s.paused ? 'resume' : 'pause'}`);
      await reload();
    } catch (err) {
      button.replaceWith(notice((err as Error).message, 'error'));
    }
  };
  // As cards under 720 px (styles.css, "Rows as cards"): each cell under its data-label.
  return h(
    'table',
    { class: 'row-cards' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['id', 'when', 'machine', 'next ticks', 'last result', 'ticks', 'state', ''].map((c) =>
          h('th', {}, c),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      list.map((s) =>
        h(
          'tr',
          { 'data-schedule-id': s.id },
          h('td', { class: 'mono wide' }, s.id),
          h('td', { class: 'wrap', 'data-col': 'text', 'data-label': 'when' }, s.text),
          h('td', { 'data-label': 'machine' }, `${s.spec.machine} (${s.spec.queue})`),
          h(
            'td',
            { class: 'wrap wide', 'data-col': 'next', 'data-label': 'next ticks' },
            nextTicks(s.nextTicks),
          ),
          h(
            'td',
            { class: 'wrap wide', 'data-col': 'last', 'data-label': 'last result' },
            lastResult(s, results.get(s.id)),
          ),
          h(
            'td',
            { 'data-label': 'ticks' },
            `${s.started} started, ${s.skipped} skipped, ${s.missed} missed`,
          ),
          h(
            'td',
            { 'data-label': 'state' },
            s.paused ? `paused${s.note ? `: ${s.note}` : ''}` : `active (${s.spec.overlap})`,
          ),
          h(
            'td',
            {},
            readOnly
              ? null
              : h(
                  'button',
                  {
                    type: 'button',
                    class: 'ghost',
                    'data-action': s.paused ? 'resume' : 'pause',
                    onclick: toggle(s),
                  },
                  s.paused ? 'Resume' : 'Pause',
                ),
          ),
        ),
      ),
    ),
  );
}

/** The next three ticks, each a <time> with its instant (tests and tools read it, people the text). */
function nextTicks(ticks: number[]): (Node | string)[] {
  if (ticks.length === 0) return ['-'];
  return ticks
    .slice(0, 3)
    .flatMap((t, i) => [
      i > 0 ? ', ' : '',
      h('time', { datetime: new Date(t).toISOString() }, time(t)),
      i === 0 ? h('span', { class: 'muted', 'data-countdown': t }) : '',
    ]);
}
