// The state chart in the page. The server lays it out and draws it once per machine version
// (SVG, each state a <g data-state-id>); here it is only inserted, then marked: every live
// change sets attributes, classes and small text labels on the elements already there, so a
// status change never lays the chart out again.

import { getText } from './api.js';
import { DASH } from './api.js';
import type { Heat, Marks } from './types.js';
import { duration } from './format.js';

const svgCache = new Map<string, Promise<string>>();

function chartSvgText(machine: string, version: number): Promise<string> {
  const key = `${machine}@${version}`;
  let p = svgCache.get(key);
  if (!p) {
    p = getText(`${DASH}/charts/${encodeURIComponent(machine)}/${version}.svg`);
    p.catch(() => svgCache.delete(key));
    svgCache.set(key, p);
  }
  return p;
}

/** Draws the chart of machine@version into `container` (replacing what was there). */
export async function drawChart(
  container: HTMLElement,
  machine: string,
  version: number,
): Promise<SVGSVGElement> {
  const text = await chartSvgText(machine, version);
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = document.importNode(doc.documentElement, true) as unknown as SVGSVGElement;
  container.replaceChildren(svg);
  container.classList.add('chart');
  for (const g of stateElements(container)) {
    if (!g.dataset.baseLabel)
      g.dataset.baseLabel = g.getAttribute('aria-label') ?? `State ${g.dataset.stateId}`;
  }
  return svg;
}

function stateElements(container: Element): SVGGElement[] {
  return [...container.querySelectorAll<SVGGElement>('[data-state-id]')];
}

/** Sets a small label inside a state's box (created once, then only its text changes). */
function setBadge(g: SVGGElement, cls: string, text: string | null): void {
  let t = g.querySelector<SVGTextElement>(`:scope > text.${cls}`);
  if (text === null) {
    if (t) t.textContent = '';
    return;
  }
  if (!t) {
    const rect = g.querySelector<SVGRectElement>(':scope > rect');
    t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    t.setAttribute('class', cls);
    const x = Number(rect?.getAttribute('x') ?? 0) + Number(rect?.getAttribute('width') ?? 0) - 4;
    const y = Number(rect?.getAttribute('y') ?? 0) + Number(rect?.getAttribute('height') ?? 0) - 4;
    t.setAttribute('x', String(x));
    t.setAttribute('y', String(y));
    t.setAttribute('text-anchor', 'end');
    t.setAttribute('aria-hidden', 'true');
    g.appendChild(t);
  }
  t.textContent = text;
}

/** Lights the active states and marks visited states and taken transitions with their counts. */
export function applyMarks(container: HTMLElement, marks: Marks): void {
  container.classList.add('marked');
  const active = new Set(marks.active);
  for (const g of stateElements(container)) {
    const id = g.dataset.stateId!;
    const visits = marks.states[id] ?? 0;
    const isActive = active.has(id) || marks.active.some((a) => a.startsWith(`${id}.`));
    g.setAttribute('data-active', isActive ? 'true' : 'false');
    // The innermost active states are lit; their active ancestors only outlined.
    g.classList.toggle('current', active.has(id));
    g.setAttribute('data-visits', String(visits));
    g.classList.toggle('visited', visits > 0);
    g.classList.toggle('untaken', visits === 0 && !isActive);
    setBadge(g, 'visit-count', visits > 0 ? `×${visits}` : null);
    const parts = [g.dataset.baseLabel ?? id];
    if (isActive) parts.push('active');
    parts.push(visits ? `entered ${visits} ${visits === 1 ? 'time' : 'times'}` : 'not entered');
    g.setAttribute('aria-label', parts.join(', '));
  }
  for (const e of container.querySelectorAll<SVGGElement>('[data-transition-id]')) {
    const n = marks.transitions[e.dataset.transitionId!] ?? 0;
    e.setAttribute('data-taken', String(n));
    e.classList.toggle('visited', n > 0);
    e.classList.toggle('untaken', n === 0);
  }
}

/** Colours each state by how many jobs sit in it now, and labels it with count and dwell times. */
export function applyHeat(container: HTMLElement, heat: Heat): void {
  const max = Math.max(1, ...Object.values(heat.states).map((s) => s.count));
  for (const g of stateElements(container)) {
    const id = g.dataset.stateId!;
    const s = heat.states[id];
    const count = s?.count ?? 0;
    const rect = g.querySelector<SVGRectElement>(':scope > rect');
    const pct = Math.round((count / max) * 100);
    if (rect) rect.style.fill = count ? `color-mix(in srgb, var(--heat-1) ${pct}%, var(--heat-0))` : '';
    g.setAttribute('data-jobs', String(count));
    const dwell = s?.p50 != null ? ` · p50 ${duration(s.p50)} · p95 ${duration(s.p95 ?? s.p50)}` : '';
    setBadge(g, 'heat-label', count || dwell ? `${count} now${dwell}` : null);
    g.setAttribute(
      'aria-label',
      `${g.dataset.baseLabel ?? id}, ${count} jobs now${dwell.replace(/·/g, ',')}`,
    );
  }
}
