// Queues overview: per queue, counts per status and the last minutes' done/failed bars, live;
// and its flow controls (flowPanel.ts): paused or not, limits and their use per key.

import { DASH, getJson } from './api.js';
import { clear, h, notice } from './dom.js';
import type { Page } from './page.js';
import { openSse, throttle } from './sse.js';
import type { Config, QueueOverview } from './types.js';
import { time } from './format.js';
import { FlowPanel } from './flowPanel.js';

/**
 * How often the flow panels read their queue's limits. Not on every event as the counts are: the
 * route reads every concurrency key of the queue, and a key's use changes with each claim.
 */
const FLOW_EVERY_MS = 5000;

export async function overviewPage(page: Page, config: Config): Promise<void> {
  const list = h('div', { class: 'cards' });
  const note = h('p', { class: 'muted' });
  page.root.replaceChildren(h('h1', {}, 'Queues'), note, list);
  const streams = new Map<string, { close(): void }>();
  // Kept across reloads of the counts: a redraw must not drop a click on Pause half-way.
  const flows = new Map<string, FlowPanel>();
  const refreshFlows = () => Promise.all([...flows.values()].map((f) => f.refresh()));
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
        list.append(queueCard(q, flow.el));
        if (!streams.has(q.queue))
          streams.set(q.queue, openSse(`/events?queue=${encodeURIComponent(q.queue)}`, refresh));
      }
      note.textContent = `Updated ${time(data.now)}; done and failed per minute over the last ${data.queues[0]?.minutes.length ?? 15} minutes.`;
    } catch (err) {
      if (!page.left) list.replaceChildren(notice(String((err as Error).message), 'error'));
    }
  };
  const refresh = throttle(() => void load(), 1000);
  const tick = setInterval(refresh, 15_000);
  const flowTick = setInterval(() => void refreshFlows(), FLOW_EVERY_MS);
  page.onLeave(() => {
    clearInterval(tick);
    clearInterval(flowTick);
    for (const s of streams.values()) s.close();
  });
  await load();
}

function queueCard(q: QueueOverview, flow: HTMLElement): HTMLElement {
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
    sparkline(q.minutes),
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

function sparkline(minutes: QueueOverview['minutes']): SVGSVGElement {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  const w = minutes.length * 10;
  svg.setAttribute('viewBox', `0 0 ${w} 48`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('class', 'spark');
  svg.setAttribute('role', 'img');
  const max = Math.max(1, ...minutes.map((m) => m.done + m.failed));
  svg.setAttribute(
    'aria-label',
    `Per minute: ${minutes.map((m) => `${m.done} done ${m.failed} failed`).join('; ')}`,
  );
  minutes.forEach((m, i) => {
    const okH = (m.done / max) * 46;
    const badH = (m.failed / max) * 46;
    for (const [cls, y, hgt] of [
      ['ok', 48 - okH, okH],
      ['bad', 48 - okH - badH, badH],
    ] as const) {
      if (hgt <= 0) continue;
      const r = document.createElementNS(NS, 'rect');
      r.setAttribute('x', String(i * 10 + 1));
      r.setAttribute('width', '8');
      r.setAttribute('y', String(y));
      r.setAttribute('height', String(hgt));
      r.setAttribute('class', cls);
      const title = document.createElementNS(NS, 'title');
      title.textContent = `${time(m.at)}: ${m.done} done, ${m.failed} failed`;
      r.appendChild(title);
      svg.appendChild(r);
    }
  });
  return svg;
}
