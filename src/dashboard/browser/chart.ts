// The state chart in the page. The server lays it out and draws it once per machine version
// (src/chart/toSvg.ts: each state a <g data-state-id>, each transition a <g data-edge-id>);
// here it is only inserted, then marked: every live change sets attributes, classes and label
// text on the elements already there, so a status change never lays the chart out again.

import { DASH, getText } from './api.js';
import { chartLegend, heatFill, setHeatRange, type LegendKind } from './chartLegend.js';
import { ChartView } from './chartView.js';
import { duration } from './format.js';
import type { Heat, Marks } from './types.js';

const svgCache = new Map<string, Promise<string>>();

function chartSvgText(machine: string, version: number, invoked?: string): Promise<string> {
  const key = `${machine}@${version}${invoked ? `:${invoked}` : ''}`;
  let p = svgCache.get(key);
  if (!p) {
    const query = invoked ? `?invoked=${encodeURIComponent(invoked)}` : '';
    p = getText(`${DASH}/charts/${encodeURIComponent(machine)}/${version}.svg${query}`);
    p.catch(() => svgCache.delete(key));
    svgCache.set(key, p);
  }
  return p;
}

export interface DrawnChart {
  svg: SVGSVGElement;
  view: ChartView;
  legend: HTMLElement;
}

/**
 * Draws the chart of machine@version into `container` (replacing what was there), in a frame
 * that zooms and pans (chartView.ts) with its legend under it; `invoked`
 * (`<state id>:<invoke id>`): the chart of the machine that state invokes instead. The view
 * starts on the next frame, once the caller has marked the chart (a narrow window starts on
 * the path the marks show).
 */
export async function drawChart(
  container: HTMLElement,
  machine: string,
  version: number,
  options: { invoked?: string; legend?: LegendKind } = {},
): Promise<DrawnChart> {
  const text = await chartSvgText(machine, version, options.invoked);
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = document.importNode(doc.documentElement, true) as unknown as SVGSVGElement;
  const view = new ChartView(svg);
  const legend = chartLegend(options.legend ?? 'job');
  container.replaceChildren(view.el, legend);
  container.classList.add('chart');
  for (const el of container.querySelectorAll<SVGElement>('[data-state-id], [data-edge-id]')) {
    el.dataset.baseLabel ??= el.getAttribute('aria-label') ?? '';
    const text = el.querySelector(':scope > text.mc-state-label, :scope > text.mc-edge-label');
    if (text) el.dataset.baseText ??= text.textContent ?? '';
  }
  syncChartTheme();
  requestAnimationFrame(() => view.start());
  return { svg, view, legend };
}

/** The chart's own stylesheet follows the system theme; the page's toggle overrides it. */
export function syncChartTheme(): void {
  const forced = document.documentElement.dataset.theme;
  for (const svg of document.querySelectorAll('svg.mc-chart')) {
    svg.classList.toggle('mc-dark', forced === 'dark');
    svg.classList.toggle('mc-light', forced === 'light');
  }
}

function setCountText(el: SVGElement, visits: number): void {
  const text = el.querySelector(':scope > text.mc-state-label, :scope > text.mc-edge-label');
  if (text) text.textContent = `${el.dataset.baseText ?? ''}${visits ? ` ×${visits}` : ''}`;
}

/** Lights the active states and marks visited states and taken transitions with their counts. */
export function applyMarks(container: HTMLElement, marks: Marks): void {
  const active = new Set(marks.active);
  const stopped = new Set(marks.stopped);
  // The root (drawn first) holds everything: it is never dimmed.
  const root = container.querySelector('[data-state-id]');
  for (const g of container.querySelectorAll<SVGGElement>('[data-state-id]')) {
    const id = g.dataset.stateId!;
    const isRoot = g === root;
    const visits = marks.visits[id] ?? 0;
    const isActive = active.has(id);
    const isStopped = stopped.has(id);
    if (isActive) g.setAttribute('data-active', 'true');
    else g.removeAttribute('data-active');
    if (isStopped) g.setAttribute('data-stopped', 'true');
    else g.removeAttribute('data-stopped');
    g.setAttribute('data-visits', String(visits));
    g.classList.toggle('mc-active', isActive);
    g.classList.toggle('mc-stopped', isStopped);
    g.classList.toggle('mc-visited', !isRoot && (visits > 0 || isActive || isStopped));
    g.classList.toggle('mc-unvisited', !isRoot && visits === 0 && !isActive && !isStopped);
    setCountText(g, visits);
    const parts = [g.dataset.baseLabel || `state ${id}`];
    if (isActive) parts.push('active');
    if (isStopped) parts.push(`stopped here (${marks.ended ?? 'ended'})`);
    parts.push(`entered ${visits} ${visits === 1 ? 'time' : 'times'}`);
    g.setAttribute('aria-label', parts.join(', '));
  }
  for (const e of container.querySelectorAll<SVGGElement>('[data-edge-id]')) {
    const n = marks.edgeVisits[e.dataset.transitionId ?? ''] ?? 0;
    e.setAttribute('data-visits', String(n));
    e.classList.toggle('mc-taken', n > 0);
    e.classList.toggle('mc-untaken', n === 0);
    setCountText(e, n);
  }
}

/** Lights `active` (an invoked machine's states now) and nothing else: it has no log of its own. */
export function lightStates(container: HTMLElement, active: readonly string[]): void {
  const on = new Set(active);
  for (const g of container.querySelectorAll<SVGGElement>('[data-state-id]')) {
    const isActive = on.has(g.dataset.stateId!);
    if (isActive) g.setAttribute('data-active', 'true');
    else g.removeAttribute('data-active');
    g.classList.toggle('mc-active', isActive);
    const base = g.dataset.baseLabel || `state ${g.dataset.stateId}`;
    g.setAttribute('aria-label', isActive ? `${base}, active` : base);
  }
}

/** Colours each state by how many jobs sit in it now, and labels it with count and dwell times. */
export function applyHeat(container: HTMLElement, heat: Heat): void {
  const busiest = Math.max(0, ...Object.values(heat.states).map((s) => s.count));
  setHeatRange(container.querySelector('.legend[data-legend-kind="heat"]'), busiest);
  const max = Math.max(1, busiest);
  for (const g of container.querySelectorAll<SVGGElement>('[data-state-id]')) {
    const id = g.dataset.stateId!;
    const s = heat.states[id];
    const count = s?.count ?? 0;
    const box = g.querySelector<SVGRectElement>(':scope > rect.mc-box');
    // Its own sequential scale (never a status colour: a busy `done` is not a failure); a
    // state with one job is still clearly tinted.
    if (box) box.style.fill = count ? heatFill(0.2 + 0.8 * (count / max)) : '';
    g.setAttribute('data-jobs', String(count));
    const dwell = s?.p50 != null ? `, dwell p50 ${duration(s.p50)}, p95 ${duration(s.p95 ?? s.p50)}` : '';
    const text = g.querySelector(':scope > text.mc-state-label');
    if (text) text.textContent = `${g.dataset.baseText ?? ''}${count ? ` (${count})` : ''}`;
    setHeatLine(g, s?.p50 != null ? `p50 ${duration(s.p50)} · p95 ${duration(s.p95 ?? s.p50)}` : '');
    let title = g.querySelector(':scope > title');
    if (!title) {
      title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
      g.prepend(title);
    }
    title.textContent = `${id}: ${count} jobs now${dwell}`;
    g.setAttribute('aria-label', `${g.dataset.baseLabel || id}, ${count} jobs now${dwell}`);
  }
}

/** A small line at the bottom of a state's box (made once, then only its text changes). */
function setHeatLine(g: SVGGElement, value: string): void {
  let t = g.querySelector<SVGTextElement>(':scope > text.heat-label');
  if (!t && !value) return;
  if (!t) {
    const box = g.querySelector<SVGRectElement>(':scope > rect.mc-box');
    t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    t.setAttribute('class', 'heat-label');
    t.setAttribute(
      'x',
      String(Number(box?.getAttribute('x') ?? 0) + Number(box?.getAttribute('width') ?? 0) / 2),
    );
    t.setAttribute(
      'y',
      String(Number(box?.getAttribute('y') ?? 0) + Number(box?.getAttribute('height') ?? 0) - 4),
    );
    t.setAttribute('text-anchor', 'middle');
    t.setAttribute('aria-hidden', 'true');
    g.appendChild(t);
  }
  t.textContent = value;
}
