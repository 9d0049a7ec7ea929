// One job: its state chart (lit and marked), what can happen next, timers, the audit log with a
// scrubber, its data and its children; all kept live from the job's event stream. Each update
// patches the sections in place: the chart is drawn once and then only re-marked.

import { ChildrenPanel } from './childrenPanel.js';
import { ActionsPanel } from './actionsPanel.js';
import { DASH, getJson, qs } from './api.js';
import { applyMarks, drawChart, lightStates } from './chart.js';
import { h, notice, statusBadge } from './dom.js';
import { duration, stateText, time } from './format.js';
import { jsonView } from './jsonView.js';
import type { Page } from './page.js';
import { openSse, throttle } from './sse.js';
import { TimelinePanel } from './timelinePanel.js';
import { TimersPanel } from './timersPanel.js';
import type { JobPageView } from './types.js';

export async function jobPage(page: Page, id: string): Promise<void> {
  const viewUrl = (at: number | null) => `${DASH}/jobs/${encodeURIComponent(id)}/view${qs({ at })}`;
  let view: JobPageView;
  try {
    view = await getJson<JobPageView>(viewUrl(null));
  } catch (err) {
    page.root.replaceChildren(h('h1', {}, `Job ${id}`), notice((err as Error).message, 'error'));
    return;
  }
  if (page.left) return;

  const header = h('div');
  const chartBox = h('div', { id: 'chart', 'aria-label': 'State chart' });
  const chartPanel = h(
    'section',
    { class: 'panel', 'aria-label': 'State chart' },
    h('h2', {}, 'State chart'),
    chartBox,
  );
  // Each machine a state invokes: its own chart, drawn once, lit while its child runs.
  const invokedPanel = h(
    'section',
    { class: 'panel', 'aria-label': 'Invoked machines' },
    h('h2', {}, 'Invoked machines'),
  );
  const invokedBoxes = new Map<string, HTMLElement>();
  invokedPanel.hidden = view.invoked.length === 0;
  const actions = new ActionsPanel(id);
  const timers = new TimersPanel();
  const data = h('section', { class: 'panel', 'aria-label': 'Data' }, h('h2', {}, 'Data'));
  const dataBody = h('div');
  data.append(dataBody);
  const children = new ChildrenPanel(id);
  let scrubbed: JobPageView | null = null;
  const timeline = new TimelinePanel((at) => void scrub(at));
  page.onLeave(() => timers.stop());

  page.root.replaceChildren(
    header,
    h(
      'div',
      { class: 'grid' },
      h('div', {}, chartPanel, invokedPanel, timeline.el),
      h('div', {}, actions.el, timers.el, data, children.el),
    ),
  );

  await drawCharts(view, chartBox, invokedPanel, invokedBoxes);

  const render = (v: JobPageView) => {
    view = v;
    renderHeader(header, v);
    // While scrubbing, the chart and data stay as of the chosen entry; the rest moves on.
    for (const inv of v.invoked) {
      const box = invokedBoxes.get(inv.key);
      if (box) lightStates(box, inv.active ?? []);
    }
    if (timeline.selected === null) {
      if (v.marks) applyMarks(chartBox, v.marks);
      renderData(dataBody, v, null);
    }
    actions.update(v);
    timers.update(v.timers, v.now);
    timeline.update(v.log, v.job.finishedAt ?? v.now);
  };
  const scrub = async (at: number | null) => {
    scrubbed = at === null ? null : await getJson<JobPageView>(viewUrl(at));
    if (page.left) return;
    const shown = scrubbed ?? view;
    if (shown.marks) applyMarks(chartBox, shown.marks);
    renderData(dataBody, shown, scrubbed ? at : null);
  };

  const reload = async () => {
    try {
      const v = await getJson<JobPageView>(viewUrl(null));
      if (page.left) return;
      render(v);
      // A cancel or a fan-in changes the children too, and their queue may be one not followed.
      if (v.job.children?.total) await children.refresh(v.job.children.total, v.job.children.finished);
    } catch (err) {
      if (!page.left) header.append(notice((err as Error).message, 'error'));
    }
  };
  const refresh = throttle(() => void reload(), 250);
  const refreshChildren = throttle(() => void reload(), 500);

  render(view);
  await children.refresh(view.job.children?.total ?? 0, view.job.children?.finished ?? 0);

  followStreams(page, id, () => view, children, refresh, refreshChildren);
}

/** The job's chart and, each in its box, the charts of the machines its states invoke. */
async function drawCharts(
  view: JobPageView,
  chartBox: HTMLElement,
  invokedPanel: HTMLElement,
  invokedBoxes: Map<string, HTMLElement>,
): Promise<void> {
  if (view.chart) {
    await drawChart(chartBox, view.chart.machine, view.chart.version);
    for (const inv of view.invoked) {
      const box = h('div', { 'aria-label': `Chart of the machine ${inv.invoke} runs` });
      invokedPanel.append(
        h(
          'div',
          { 'data-invoked': inv.key },
          h('h3', {}, `${inv.invoke} (${inv.src}), invoked in ${stateText(inv.state)}`),
          box,
        ),
      );
      invokedBoxes.set(inv.key, box);
      await drawChart(box, view.chart.machine, view.chart.version, { invoked: inv.key });
    }
  } else
    chartBox.replaceChildren(notice('This job has no chart: its machine is a simple job (load and work).'));
}

/**
 * Keeps the page live: the job's own stream, and the event streams of the queues its children
 * live on. `view` gives the view as last rendered.
 */
function followStreams(
  page: Page,
  id: string,
  view: () => JobPageView,
  children: ChildrenPanel,
  refresh: () => void,
  refreshChildren: () => void,
): void {
  // The job's stream ends once the job has finished; a retry from the dead letters shows on
  // its queue's stream, followed below.
  const job = openSse(
    `/jobs/${encodeURIComponent(id)}/stream`,
    () => refresh(),
    () => FINISHED.has(view().job.status),
  );
  page.onLeave(() => job.close());
  // Children change without their parent's stream saying so: follow the streams of the queues
  // they live on (the job's own, and any other a child was seen on).
  const followed = new Set<string>();
  const follow = () => {
    for (const q of [view().job.queue, ...children.queues()]) {
      if (followed.has(q)) continue;
      followed.add(q);
      const s = openSse(`/events?queue=${encodeURIComponent(q)}`, (m) => {
        const jobId = (parseJson(m.data) as { jobId?: string } | null)?.jobId;
        if (jobId === id) refresh();
        else if ((view().job.children?.total ?? 0) > 0) refreshChildren();
      });
      page.onLeave(() => s.close());
    }
  };
  follow();
  page.onLeave(children.onRefresh(follow));
}

const FINISHED = new Set(['done', 'failed', 'cancelled']);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function renderHeader(el: HTMLElement, v: JobPageView): void {
  const j = v.job;
  const meta: (string | Node)[] = [
    statusBadge(j.status),
    h(
      'span',
      {},
      'machine ',
      h(
        'a',
        { href: `#/machine/${encodeURIComponent(j.machine)}/${j.version}` },
        `${j.machine}@${j.version}`,
      ),
    ),
    h('span', {}, `queue ${j.queue}`),
    h('span', {}, `state ${stateText(j.state)}`),
    h('span', {}, `attempt ${j.attempts}/${j.maxAttempts}`),
    h('span', {}, `priority ${j.priority}`),
    h('span', {}, `created ${time(j.createdAt)}`),
  ];
  if (j.finishedAt)
    meta.push(h('span', {}, `finished ${time(j.finishedAt)} (took ${duration(j.finishedAt - j.createdAt)})`));
  if (j.parentId)
    meta.push(
      h(
        'span',
        {},
        'parent ',
        h('a', { href: `#/job/${encodeURIComponent(j.parentId)}`, class: 'mono' }, j.parentId),
      ),
    );
  if (j.cancelRequested && j.status !== 'cancelled')
    meta.push(h('span', { class: 'error' }, 'cancel requested'));
  el.replaceChildren(
    h('h1', {}, 'Job ', h('span', { class: 'mono' }, j.id)),
    h('div', { class: 'counts', 'data-job-status': j.status }, meta),
  );
}

/** Input, context, output, error and progress; the open/closed state of each block survives. */
function renderData(el: HTMLElement, v: JobPageView, at: number | null): void {
  const open = new Set(
    [...el.querySelectorAll<HTMLDetailsElement>('details[open]')].map((d) => d.dataset.json),
  );
  const first = el.childElementCount === 0;
  const blocks: HTMLElement[] = [];
  if (at !== null) {
    blocks.push(
      notice(
        v.contextAt === undefined
          ? `As of entry ${at + 1} of the audit log. The log holds no context for that moment (a simple job, or one logged before states carried their context): the context shown is the latest.`
          : `As of entry ${at + 1} of the audit log: the context as the job entered the state it was in then (values too large for the log are noted, not kept).`,
      ),
    );
  }
  const ctx = at !== null && v.contextAt !== undefined ? v.contextAt : v.job.context;
  blocks.push(jsonView('input', v.job.input, first || open.has('input')));
  blocks.push(jsonView('context', ctx, first || open.has('context')));
  if (v.job.progress !== null) blocks.push(jsonView('progress', v.job.progress, open.has('progress')));
  if (v.job.output !== null) blocks.push(jsonView('output', v.job.output, first || open.has('output')));
  if (v.job.error !== null) blocks.push(jsonView('error', v.job.error, first || open.has('error')));
  el.replaceChildren(...blocks);
}
