// Time-series charts of a queue over a window (GET /queues/:queue/series), drawn by hand as SVG:
// stacked bars (jobs per point) or lines (a rate, p50/p95 times), a y axis with 3-4 round ticks,
// a time axis whose labels are spaced so they never overlap, and an HTML legend that wraps.
// The SVG is drawn at the pixel width of its box (read at draw time; seriesPanel.ts redraws on
// resize), not scaled by a viewBox, so text keeps its size in a narrow window.

import { h } from './dom.js';

const NS = 'http://www.w3.org/2000/svg';
const HEIGHT = 150;
/** Room for the y labels (left), the time labels (bottom), and half a label above the top tick. */
const M = { left: 52, right: 8, top: 8, bottom: 20 };
/** The least room a time label takes, with its gap ("23:45" at 11 px is ~32 px). */
const LABEL_PX = 56;

export interface Series {
  /** The legend's text. */
  name: string;
  /** A class for its colour (styles.css: .sc-done, .sc-failed, ...). */
  cls: string;
  /** One value per point; null: none (a gap in a line, nothing in a bar). */
  values: (number | null)[];
}

export interface ChartSpec {
  /** `data-chart` of the figure: what a test finds it by. */
  id: string;
  title: string;
  kind: 'bars' | 'lines';
  /** Each point's start (ms) and the width of one. */
  at: number[];
  stepMs: number;
  series: Series[];
  /** A y tick's label. */
  format: (v: number) => string;
  /** The y axis's least top (e.g. 1 for a rate in 0..1, so an empty chart still has ticks). */
  minTop?: number;
  /** Tells what the title's unit is, under it. */
  unit?: string;
}

/** A figure: the title, the chart, the legend. `width`: the box's width in px. */
export function seriesFigure(spec: ChartSpec, width: number): HTMLElement {
  const legend = h(
    'ul',
    { class: 'sc-legend', 'aria-label': `${spec.title}: legend` },
    spec.series.map((s) => h('li', {}, h('span', { class: `sc-swatch ${s.cls}` }), s.name)),
  );
  return h(
    'figure',
    { class: 'series-chart', 'data-chart': spec.id },
    h(
      'figcaption',
      {},
      h('b', {}, spec.title),
      spec.unit ? h('span', { class: 'muted' }, ` ${spec.unit}`) : null,
    ),
    chartSvg(spec, Math.max(200, Math.floor(width))),
    legend,
  );
}

function el<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function chartSvg(spec: ChartSpec, width: number): SVGSVGElement {
  const svg = el('svg', { width, height: HEIGHT, class: 'sc-svg', role: 'img', 'aria-label': summary(spec) });
  const plotW = width - M.left - M.right;
  const plotH = HEIGHT - M.top - M.bottom;
  const n = spec.at.length;
  const slot = plotW / Math.max(1, n);
  const top = niceTop(Math.max(spec.minTop ?? 0, maxOf(spec)));
  const y = (v: number) => M.top + plotH - (v / top) * plotH;
  const x = (i: number) => M.left + i * slot;

  // The y axis: 0 and round ticks up to `top`, each a grid line and a label.
  const ticks = yTicks(top);
  const axis = el('g', { class: 'sc-axis sc-y' });
  for (const t of ticks) {
    axis.append(el('line', { x1: M.left, x2: width - M.right, y1: y(t), y2: y(t), class: 'sc-grid' }));
    axis.append(
      el(
        'text',
        { x: M.left - 6, y: y(t), 'text-anchor': 'end', 'dominant-baseline': 'middle' },
        spec.format(t),
      ),
    );
  }
  svg.append(axis);

  // The time axis: a label at the start of each point aligned to the chosen step.
  const times = el('g', { class: 'sc-axis sc-x' });
  times.append(el('line', { x1: M.left, x2: width - M.right, y1: y(0), y2: y(0), class: 'sc-base' }));
  const every = labelStep(spec.stepMs * n, plotW);
  spec.at.forEach((at, i) => {
    if (at % every !== 0) return;
    const cx = x(i);
    // A label whose box would leave the plot is not drawn (the first and last are the likely ones).
    if (cx - 16 < M.left - 4 || cx + 16 > width - M.right) return;
    times.append(el('line', { x1: cx, x2: cx, y1: y(0), y2: y(0) + 3, class: 'sc-base' }));
    times.append(el('text', { x: cx, y: HEIGHT - 5, 'text-anchor': 'middle' }, clock(at)));
  });
  svg.append(times);

  if (spec.kind === 'bars') {
    const bw = Math.max(1, slot - Math.min(4, slot * 0.25));
    spec.at.forEach((at, i) => {
      let base = 0;
      for (const s of spec.series) {
        const v = s.values[i] ?? 0;
        if (v <= 0) continue;
        const r = el('rect', {
          x: x(i) + (slot - bw) / 2,
          width: bw,
          y: y(base + v),
          height: y(base) - y(base + v),
        });
        r.setAttribute('class', `sc-bar ${s.cls}`);
        r.append(el('title', {}, `${clock(at)}: ${v} ${s.name}`));
        svg.append(r);
        base += v;
      }
    });
  } else {
    for (const s of spec.series) {
      const g = el('g', { class: `sc-line ${s.cls}` });
      let d = '';
      s.values.forEach((v, i) => {
        if (v === null) return;
        const px = x(i) + slot / 2;
        // A gap where a point has no value: the line starts again after it.
        d += `${d === '' || s.values[i - 1] === null || s.values[i - 1] === undefined ? 'M' : 'L'}${px.toFixed(1)},${y(v).toFixed(1)}`;
        const dot = el('circle', { cx: px, cy: y(v), r: 2.5 });
        dot.append(el('title', {}, `${clock(spec.at[i]!)}: ${s.name} ${spec.format(v)}`));
        g.append(dot);
      });
      if (d) g.prepend(el('path', { d, fill: 'none' }));
      svg.append(g);
    }
  }
  return svg;
}

function maxOf(spec: ChartSpec): number {
  if (spec.kind === 'bars')
    return Math.max(0, ...spec.at.map((_, i) => spec.series.reduce((n, s) => n + (s.values[i] ?? 0), 0)));
  return Math.max(0, ...spec.series.flatMap((s) => s.values.filter((v): v is number => v !== null)));
}

/** The least 1, 2 or 5 times a power of ten at or above `max` (1 for an empty chart). */
export function niceTop(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/** 0 and two to five round ticks up to `top` (from niceTop): steps of 1, 2 or 5 times a power of 10. */
function yTicks(top: number): number[] {
  const m = Math.round((top / 10 ** Math.floor(Math.log10(top))) * 10) / 10;
  const parts = m === 1 ? 2 : m === 2 ? 4 : 5;
  return Array.from({ length: parts + 1 }, (_, i) => (top * i) / parts);
}

/** The least round time step (ms) whose labels fit `plotW` px at LABEL_PX each. */
function labelStep(windowMs: number, plotW: number): number {
  const fit = Math.max(1, Math.floor(plotW / LABEL_PX));
  const MIN = 60_000;
  for (const m of [1, 2, 5, 10, 15, 30, 60, 120, 180, 240, 360, 720, 1440])
    if (windowMs / (m * MIN) <= fit) return m * MIN;
  return 1440 * MIN;
}

/** HH:MM, local, 24 h. */
function clock(at: number): string {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** What a screen reader says of the chart: its totals or its latest values. */
function summary(spec: ChartSpec): string {
  const parts = spec.series.map((s) => {
    const vs = s.values.filter((v): v is number => v !== null);
    if (spec.kind === 'bars') return `${vs.reduce((a, b) => a + b, 0)} ${s.name}`;
    return vs.length ? `${s.name} latest ${spec.format(vs.at(-1)!)}` : `${s.name}: no data`;
  });
  return `${spec.title}: ${parts.join(', ')}`;
}
