// Queues overview: per queue, counts per status, live; the queue over time (seriesPanel.ts: jobs
// ended, failure rate, p50/p95 wait and run over 15 min, 1 h or 24 h); and its flow controls
// (flowPanel.ts): paused or not, limits and their use per key.

import { DASH, getJson } from './api.js';
import { clear, h, notice } from './dom.js';
import type { Page } from './page.js';
import { openSse, throttle } from './sse.js';
import type { Config, QueueOverview } from './types.js';
import { time } from './format.js';
import { FlowPanel } from './flowPanel.js';
import { SeriesPanel } from './seriesPanel.js';
import type { SeriesWindow } from './types.js';

/**
 * How often the flow panels read their queue's limits. Not on every event as the counts are: the
 * route reads every concurrency key of the queue, and a key's use changes with each claim.
 */
const FLOW_EVERY_MS = 5000;

/**
 * How often the charts read their series: a 24 h window's point is 15 minutes wide and its read
 * is 1,440 small hashes per queue, so it is read once a minute; the minute windows every 10 s.
 */
const SERIES_EVERY_MS: Record<SeriesWindow, number> = { '15m': 10_000, '1h': 10_000, '24h': 60_000 };
const WINDOW_KEY = 'machinist.seriesWindow';
const WINDOWS: [SeriesWindow, string][] = [
  ['15m', '15 min'],
  ['1h', '1 h'],
  ['24h', '24 h'],
];

function savedWindow(): SeriesWindow {
  const w = localStorage.getItem(WINDOW_KEY);
  return WINDOWS.some(([k]) => k === w) ? (w as SeriesWindow) : '15m';
}

export async function overviewPage(page: Page, config: Config): Promise<void> {
  const list = h('div', { class: 'queues' });
  const note = h('p', { class: 'muted' });
  let win = savedWindow();
  const buttons = WINDOWS.map(([w, label]) =>
    h(
      'button',
      {
        type: 'button',
        class: 'ghost',
        'data-window': w,
        'aria-pressed': String(w === win),
        onclick: () => {
          win = w;
          localStorage.setItem(WINDOW_KEY, w);
          for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.window === w));
          restartSeries();
        },
      },
      label,
    ),
  );
  const picker = h('div', { class: 'window-picker', role: 'group', 'aria-label': 'Time window' }, buttons);
  page.root.replaceChildren(h('div', { class: 'page-head' }, h('h1', {}, 'Queues'), picker), note, list);
  const streams = new Map<string, { close(): void }>();
  // Kept across reloads of the counts: a redraw must not drop a click on Pause half-way, nor
  // a chart its data.
  const flows = new Map<string, FlowPanel>();
  const charts = new Map<string, SeriesPanel>();
  const refreshFlows = () => Promise.all([...flows.values()].map((f) => f.refresh()));
  const refreshSeries = () => Promise.all([...charts.values()].map((c) => c.refresh(win)));
  let seriesTick: ReturnType<typeof setInterval> | undefined;
  const restartSeries = () => {
    clearInterval(seriesTick);
    seriesTick = setInterval(() => void refreshSeries(), SERIES_EVERY_MS[win]);
    void refreshSeries();
  };
  const load = async () => {
    try {
      const data = await getJson<{ now: number; queues: QueueOverview[] }>(`${DASH}/overview`);
      if (page.left) return;
      clear(list);
      if (data.queues.length === 0) list.append(notice('No queues yet: enqueue a job or start a worker.'));
      for (const q of data.queues) {
        let flow = flows.get(q.queue);
        if (!flow) {
          flow = new FlowPanel(q.queue, config.readOnly, () => refresh());
          flows.set(q.queue, flow);
          void flow.refresh();
        }
        let chart = charts.get(q.queue);
        if (!chart) {
          chart = new SeriesPanel(q.queue);
          charts.set(q.queue, chart);
          void chart.refresh(win);
        }
        list.append(queueCard(q, chart.el, flow.el));
        if (!streams.has(q.queue))
          streams.set(q.queue, openSse(`/events?queue=${encodeURIComponent(q.queue)}`, refresh));
      }
      note.textContent = `Updated ${time(data.now)}. Times: wait is from a job's creation to the claim of the attempt that ended it, run from that claim to its end; p50 and p95 are estimated from buckets (within a factor of 2.15).`;
    } catch (err) {
      if (!page.left) list.replaceChildren(notice(String((err as Error).message), 'error'));
    }
  };
  const refresh = throttle(() => void load(), 1000);
  const tick = setInterval(refresh, 15_000);
  const flowTick = setInterval(() => void refreshFlows(), FLOW_EVERY_MS);
  restartSeries();
  page.onLeave(() => {
    clearInterval(tick);
    clearInterval(flowTick);
    clearInterval(seriesTick);
    for (const c of charts.values()) c.close();
    for (const s of streams.values()) s.close();
  });
  await load();
}

function queueCard(q: QueueOverview, series: HTMLElement, flow: HTMLElement): HTMLElement {
  const counts = h(
    'div',
    { class: 'counts' },
    Object.entries(q.counts).map(([status, n]) =>
      h(
        'div',
        { 'data-count': status },
        h(
          'b',
          {},
          h('a', { href: `#/jobs?queue=${encodeURIComponent(q.queue)}&status=${listStatus(status)}` }, n),
        ),
        h('span', { class: 'muted' }, status),
      ),
    ),
  );
  const done = q.minutes.reduce((n, m) => n + m.done, 0);
  const failed = q.minutes.reduce((n, m) => n + m.failed, 0);
  return h(
    'section',
    { class: 'panel', 'data-queue': q.queue, 'aria-label': `Queue ${q.queue}` },
    h('h2', {}, h('a', { href: `#/jobs?queue=${encodeURIComponent(q.queue)}` }, q.queue)),
    counts,
    series,
    h('p', { class: 'muted' }, `${done} done, ${failed} failed in ${q.minutes.length} min${windowNote(q)}`),
    flow,
  );
}

/** Why the counts may cover less than the window (the stream is young or trimmed, or too big). */
function windowNote(q: QueueOverview): string {
  if (q.capped) return ' (more events than one look reads: counts are partial)';
  return q.heldSince !== null ? ` (events held since ${time(q.heldSince)})` : '';
}

/** The status a count's link filters the jobs list by (the indexes are named after statuses). */
function listStatus(index: string): string {
  if (index === 'active') return 'working';
  if (index === 'delayed') return 'queued';
  return index === 'dead' || index === 'broken' ? 'failed' : index;
}
