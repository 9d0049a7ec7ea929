// Schedules (docs/schedules.md): each schedule with its text (cronstrue, from the API), its next
// ticks, its last job and a pause/resume button; refreshed every few seconds (ticks are seconds
// apart at the finest, so polling the one list route is cheaper than following every queue).

import { getJson, postJson } from './api.js';
import { h, notice } from './dom.js';
import { time } from './format.js';
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
      if (page.left) return;
      body.replaceChildren(
        schedules.length === 0 ? notice('No schedules yet.') : table(schedules, load, config.readOnly),
      );
    } catch (err) {
      if (!page.left) body.replaceChildren(notice((err as Error).message, 'error'));
    }
  };
  const tick = setInterval(() => void load(), 5000);
  page.onLeave(() => clearInterval(tick));
  await load();
}

/** `readOnly`: no pause/resume button (the dashboard offers no actions; the API decides anyway). */
function table(list: Schedule[], reload: () => Promise<void>, readOnly: boolean): HTMLElement {
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
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['id', 'when', 'machine', 'next ticks', 'last job', 'ticks', 'state', ''].map((c) => h('th', {}, c)),
      ),
    ),
    h(
      'tbody',
      {},
      list.map((s) =>
        h(
          'tr',
          { 'data-schedule-id': s.id },
          h('td', { class: 'mono' }, s.id),
          h('td', { class: 'wrap', 'data-col': 'text' }, s.text),
          h('td', {}, `${s.spec.machine} (${s.spec.queue})`),
          h('td', { class: 'wrap', 'data-col': 'next' }, nextTicks(s.nextTicks)),
          h(
            'td',
            {},
            s.lastJob
              ? h('a', { href: `#/job/${encodeURIComponent(s.lastJob.id)}`, class: 'mono' }, s.lastJob.id)
              : '-',
          ),
          h('td', {}, `${s.started} started, ${s.skipped} skipped, ${s.missed} missed`),
          h('td', {}, s.paused ? `paused${s.note ? `: ${s.note}` : ''}` : `active (${s.spec.overlap})`),
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
    .flatMap((t, i) => [i > 0 ? ', ' : '', h('time', { datetime: new Date(t).toISOString() }, time(t))]);
}
