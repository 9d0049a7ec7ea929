// The legend under every chart. Each swatch is a tiny chart of its own (an svg.mc-chart holding
// a state or an edge with the chart's own classes), so it is drawn by the chart's stylesheet:
// a swatch cannot differ from what it stands for, in either theme.

import { h } from './dom.js';

const NS = 'http://www.w3.org/2000/svg';

function svgEl(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** A state box drawn with `classes` (e.g. `mc-visited`), 22x14. */
function stateSwatch(classes: string): SVGSVGElement {
  const svg = svgEl('svg', {
    class: 'mc-chart legend-swatch',
    width: 22,
    height: 14,
    viewBox: '0 0 22 14',
    'aria-hidden': 'true',
  });
  const g = svgEl('g', { class: `mc-state mc-atomic ${classes}` });
  g.append(svgEl('rect', { class: 'mc-box', x: 1.5, y: 1.5, width: 19, height: 11, rx: 3 }));
  svg.append(g);
  return svg as SVGSVGElement;
}

/** A transition drawn with `classes` (e.g. `mc-taken`). */
function edgeSwatch(classes: string): SVGSVGElement {
  const svg = svgEl('svg', {
    class: 'mc-chart legend-swatch',
    width: 22,
    height: 14,
    viewBox: '0 0 22 14',
    'aria-hidden': 'true',
  });
  const g = svgEl('g', { class: `mc-edge ${classes}` });
  g.append(svgEl('path', { d: 'M1,7 L21,7' }));
  svg.append(g);
  return svg as SVGSVGElement;
}

function item(swatch: Element, text: string, key: string): HTMLElement {
  return h('span', { 'data-legend': key }, swatch, text);
}

export type LegendKind = 'job' | 'heat' | 'diff';

/** What the marks of a job's chart mean. */
function jobItems(): HTMLElement[] {
  return [
    item(stateSwatch('mc-active'), 'active now', 'active'),
    item(stateSwatch('mc-visited'), 'visited (×times)', 'visited'),
    item(stateSwatch('mc-visited mc-stopped'), 'stopped there (cancelled or failed)', 'stopped'),
    item(stateSwatch('mc-unvisited'), 'not visited', 'unvisited'),
    item(edgeSwatch('mc-taken'), 'transition taken (×times)', 'taken'),
  ];
}

function diffItems(): HTMLElement[] {
  return [
    item(stateSwatch('mc-diff-added'), 'added', 'added'),
    item(stateSwatch('mc-diff-renamed'), 'renamed ("was …" on the newer, "→ …" on the older)', 'renamed'),
    item(stateSwatch('mc-diff-removed'), 'removed (on the older version)', 'removed'),
  ];
}

/** A legend element; a heat legend's range is set by setHeatRange. */
export function chartLegend(kind: LegendKind): HTMLElement {
  const el = h('div', { class: 'legend', 'data-legend-kind': kind });
  if (kind === 'job') el.append(...jobItems());
  else if (kind === 'diff') el.append(...diffItems());
  else {
    const ramp = svgEl('svg', {
      class: 'mc-chart legend-ramp',
      width: 96,
      height: 12,
      viewBox: '0 0 96 12',
      'aria-hidden': 'true',
    });
    // Five steps of the same mix applyHeat uses: the ramp is the scale itself.
    for (let i = 0; i < 5; i++) {
      const r = svgEl('rect', { x: i * 19.2, y: 0, width: 19.2, height: 12 });
      r.style.fill = heatFill(0.2 + i * 0.2);
      ramp.append(r);
    }
    el.append(
      h(
        'span',
        { 'data-legend': 'heat' },
        'jobs in the state now: ',
        h(
          'span',
          { 'data-heat-scale': '' },
          h('span', { 'data-heat-min': '' }, '1'),
          ramp,
          h('span', { 'data-heat-max': '' }, '1'),
        ),
        h('span', { 'data-heat-none': '', hidden: true }, 'no job in any state'),
      ),
      item(stateSwatch(''), 'no job', 'empty'),
    );
  }
  return el;
}

/** The heat scale: `share` (0..1] of the busiest state, from --mc-heat-lo to --mc-heat-hi. */
export function heatFill(share: number): string {
  const pct = Math.round(Math.min(1, Math.max(0, share)) * 100);
  return `color-mix(in srgb, var(--mc-heat-hi) ${pct}%, var(--mc-heat-lo))`;
}

/** The ramp's ends: 1 job and the busiest state's count (the ramp alone when no state holds a job). */
export function setHeatRange(legend: HTMLElement | null, max: number): void {
  const scale = legend?.querySelector<HTMLElement>('[data-legend="heat"]');
  const hi = legend?.querySelector('[data-heat-max]');
  if (!scale || !hi) return;
  scale.dataset.max = String(max);
  hi.textContent = String(max);
  scale.querySelector<HTMLElement>('[data-heat-scale]')!.hidden = max === 0;
  scale.querySelector<HTMLElement>('[data-heat-none]')!.hidden = max !== 0;
  scale.title = max ? `from 1 job to ${max}, the busiest state now` : 'no state holds a job now';
}
