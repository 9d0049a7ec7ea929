// Zoom and pan of a drawn chart: only the svg's viewBox changes (the chart is laid out once,
// never again). The view is a centre and a scale (screen px per chart unit) with the viewBox
// kept at the viewport's aspect, so a zoom about a point and a drag are plain arithmetic.
// Fit (the default) shows the whole chart; "Path" shows the states the job went through and
// the active one, which is where a narrow window starts when the whole chart would be too small
// to read. A chart showing only part of itself says so and how to move it.

import { h } from './dom.js';

interface Point {
  x: number;
  y: number;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Below this scale (px per chart unit) text is too small to read: a narrow window starts on the path. */
const READABLE = 0.75;
const MAX_SCALE = 3;
const STEP = 1.25;
/** Where a chart fits in height at most: the page stays scrollable around it. */
const MAX_HEIGHT_VH = 0.7;
const MIN_HEIGHT = 180;
const MARGIN = 16;

export class ChartView {
  readonly el: HTMLElement;
  private readonly viewport: HTMLElement;
  private readonly hint: HTMLElement;
  private readonly zoomText: HTMLElement;
  private readonly chart: Box;
  private cx = 0;
  private cy = 0;
  private scale = 1;
  private mode: 'fit' | 'path' | 'free' = 'fit';
  private readonly pointers = new Map<number, Point>();

  constructor(private readonly svg: SVGSVGElement) {
    const [, , w = 0, hgt = 0] = (svg.getAttribute('viewBox') ?? '0 0 0 0').split(/\s+/).map(Number);
    this.chart = { x: 0, y: 0, width: w, height: hgt };
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
    this.viewport = h('div', {
      class: 'chart-viewport',
      tabindex: 0,
      role: 'region',
      'aria-label': 'Chart: + and - zoom, arrows pan, 0 fits, p shows the path taken',
    });
    this.viewport.append(svg);
    const button = (label: string, action: string, title: string, run: () => void) =>
      h(
        'button',
        { type: 'button', class: 'ghost', 'data-chart-action': action, title, onclick: run },
        label,
      );
    this.zoomText = h('span', { class: 'chart-zoom muted', 'aria-live': 'polite' });
    // Short on a phone, so that it shares the buttons' line (styles.css).
    this.hint = h(
      'span',
      { class: 'chart-hint' },
      h('span', { class: 'hint-long' }, 'Part of the chart: drag, arrows or Fit to see the rest'),
      h('span', { class: 'hint-short' }, 'Part shown: drag or Fit'),
    );
    const tools = h(
      'div',
      { class: 'chart-tools' },
      button('−', 'zoom-out', 'Zoom out (-)', () => this.zoomBy(1 / STEP)),
      button('+', 'zoom-in', 'Zoom in (+)', () => this.zoomBy(STEP)),
      button('Fit', 'fit', 'Fit the whole chart (0)', () => this.fit()),
      button('Path', 'path', 'Show the path taken and the active state (p)', () => this.showPath()),
      this.zoomText,
      this.hint,
    );
    this.el = h('div', { class: 'chart-frame' }, tools, this.viewport);
    this.listen();
  }

  /** Sizes the viewport to the width it got, then fits, or starts on the path when fit is unreadable. */
  start(): void {
    this.size();
    if (this.fitScale() < READABLE && this.pathBox()) this.showPath();
    else this.fit();
    new ResizeObserver(() => {
      const before = this.viewport.clientWidth;
      this.size();
      if (this.mode === 'fit' || before === 0) this.fit();
      else this.apply();
    }).observe(this.el);
  }

  fit(): void {
    this.mode = 'fit';
    this.scale = this.fitScale();
    this.cx = this.chart.width / 2;
    this.cy = this.chart.height / 2;
    this.apply();
  }

  /** The states the job went through and the active one, as large as fits (up to 1:1), centred on the active state when it fits. */
  showPath(): void {
    const box = this.pathBox();
    if (!box) return this.fit();
    const { w, h: vh } = this.viewportSize();
    this.mode = 'path';
    const whole = Math.min(1, (w - MARGIN) / box.width, (vh - MARGIN) / box.height);
    // A path too long to read whole (a retried job's lifecycle at 420 px): as much of it as is
    // readable, about the active state; the hint says there is more.
    this.scale = Math.max(this.fitScale(), Math.min(1, Math.max(whole, READABLE)));
    this.cx = box.x + box.width / 2;
    this.cy = box.y + box.height / 2;
    const active = this.activeBox();
    if (active) this.centreOn(active, whole >= READABLE);
    this.keepOnChart();
    this.apply();
  }

  zoomBy(factor: number, at?: { x: number; y: number }): void {
    const next = this.clampScale(this.scale * factor);
    // A zoom keeps the point under `at` (a wheel's pointer) where it is; from the buttons or
    // keys it zooms about the active state, kept in view, else about the view's centre.
    if (at) {
      this.cx = at.x + (this.cx - at.x) * (this.scale / next);
      this.cy = at.y + (this.cy - at.y) * (this.scale / next);
      this.scale = next;
    } else {
      this.scale = next;
      const active = this.activeBox();
      if (active) this.centreOn(active, false);
    }
    this.mode = 'free';
    this.apply();
  }

  /**
   * Two fingers moved from `before` to `after` (screen points): the chart point under their old
   * midpoint goes under the new one, scaled by how much they spread, so each finger keeps the
   * point it touched, as a map does.
   */
  pinch(before: readonly [Point, Point], after: readonly [Point, Point]): void {
    const spread = (p: readonly [Point, Point]) => Math.hypot(p[0].x - p[1].x, p[0].y - p[1].y);
    const mid = (p: readonly [Point, Point]) => ({ x: (p[0].x + p[1].x) / 2, y: (p[0].y + p[1].y) / 2 });
    if (spread(before) <= 0) return;
    const m0 = mid(before);
    const m1 = mid(after);
    const at = this.toChart(m0.x, m0.y);
    this.scale = this.clampScale((this.scale * spread(after)) / spread(before));
    const r = this.viewport.getBoundingClientRect();
    this.cx = at.x - (m1.x - r.left - r.width / 2) / this.scale;
    this.cy = at.y - (m1.y - r.top - r.height / 2) / this.scale;
    this.mode = 'free';
    this.apply();
  }

  panBy(dxPx: number, dyPx: number): void {
    this.cx -= dxPx / this.scale;
    this.cy -= dyPx / this.scale;
    this.mode = 'free';
    this.apply();
  }

  private clampScale(scale: number): number {
    return Math.min(MAX_SCALE, Math.max(this.fitScale() / 2, scale));
  }

  private viewportSize(): { w: number; h: number } {
    return { w: this.viewport.clientWidth || 1, h: this.viewport.clientHeight || 1 };
  }

  /** The whole chart in view, never enlarged past 1:1 (a small chart stays its size). */
  private fitScale(): number {
    const { w, h: vh } = this.viewportSize();
    return Math.min(1, w / (this.chart.width || 1), vh / (this.chart.height || 1));
  }

  /** The viewport is as tall as the chart at its width (at most 1:1, at least readable), within bounds. */
  private size(): void {
    const w = this.viewport.clientWidth || this.el.clientWidth;
    // Where the whole chart would be unreadable, room for a readable part of its path (none
    // when it has no path: a heat map with no job shows its whole, small, without empty bands).
    const least = this.pathBox() ? READABLE : 0;
    const natural = this.chart.height * Math.max(least, Math.min(1, w / (this.chart.width || 1)));
    const max = Math.max(MIN_HEIGHT, innerHeight * MAX_HEIGHT_VH);
    this.viewport.style.height = `${Math.round(Math.min(max, Math.max(MIN_HEIGHT, natural)))}px`;
  }

  /**
   * No empty band past an edge of the chart where it is larger than the view, and centred where
   * it is smaller (the active state, inside the chart, stays in view).
   */
  private keepOnChart(): void {
    const { w, h: vh } = this.viewportSize();
    const clamp = (c: number, half: number, size: number) =>
      size > 2 * half ? Math.min(size - half, Math.max(half, c)) : size / 2;
    this.cx = clamp(this.cx, w / 2 / this.scale, this.chart.width);
    this.cy = clamp(this.cy, vh / 2 / this.scale, this.chart.height);
  }

  private centreOn(b: Box, always: boolean): void {
    const { w, h: vh } = this.viewportSize();
    const halfW = w / 2 / this.scale;
    const halfH = vh / 2 / this.scale;
    const inView =
      b.x >= this.cx - halfW &&
      b.x + b.width <= this.cx + halfW &&
      b.y >= this.cy - halfH &&
      b.y + b.height <= this.cy + halfH;
    if (always ? !inView : true) {
      this.cx = b.x + b.width / 2;
      this.cy = b.y + b.height / 2;
    }
  }

  private boxesOf(selector: string): Box | null {
    let box: Box | null = null;
    for (const rect of this.svg.querySelectorAll<SVGRectElement>(selector)) {
      const b = rect.getBBox();
      if (!box) box = { x: b.x, y: b.y, width: b.width, height: b.height };
      else {
        const x = Math.min(box.x, b.x);
        const y = Math.min(box.y, b.y);
        box = {
          x,
          y,
          width: Math.max(box.x + box.width, b.x + b.width) - x,
          height: Math.max(box.y + box.height, b.y + b.height) - y,
        };
      }
    }
    return box;
  }

  /** The innermost active or stopped states. */
  private activeBox(): Box | null {
    return this.boxesOf(
      '.mc-active:not(.mc-compound):not(.mc-parallel) > rect.mc-box, .mc-stopped:not(.mc-compound):not(.mc-parallel) > rect.mc-box',
    );
  }

  /**
   * Every state the job went through, or on a heat map every state holding jobs (leaf boxes: a
   * compound one would be the whole chart).
   */
  private pathBox(): Box | null {
    const leaf = ':not(.mc-compound):not(.mc-parallel)';
    const b = this.boxesOf(
      [`.mc-visited${leaf}`, `.mc-active${leaf}`, `[data-jobs]:not([data-jobs="0"])${leaf}`]
        .map((s) => `${s} > rect.mc-box`)
        .join(', '),
    );
    return (
      b && { x: b.x - MARGIN, y: b.y - MARGIN, width: b.width + 2 * MARGIN, height: b.height + 2 * MARGIN }
    );
  }

  private apply(): void {
    const { w, h: vh } = this.viewportSize();
    const vw = w / this.scale;
    const vhh = vh / this.scale;
    this.svg.setAttribute(
      'viewBox',
      [this.cx - vw / 2, this.cy - vhh / 2, vw, vhh].map((n) => Math.round(n * 10) / 10).join(' '),
    );
    // Everything in view, or only part: the frame says which, and the hint shows how to move.
    const all =
      this.cx - vw / 2 <= 0.5 &&
      this.cy - vhh / 2 <= 0.5 &&
      this.cx + vw / 2 >= this.chart.width - 0.5 &&
      this.cy + vhh / 2 >= this.chart.height - 0.5;
    this.el.dataset.view = this.mode;
    this.el.classList.toggle('chart-partial', !all);
    this.zoomText.textContent = `${Math.round(this.scale * 100)}%`;
  }

  /** Chart coordinates of a point on screen. */
  private toChart(clientX: number, clientY: number): { x: number; y: number } {
    const r = this.viewport.getBoundingClientRect();
    return {
      x: this.cx + (clientX - r.left - r.width / 2) / this.scale,
      y: this.cy + (clientY - r.top - r.height / 2) / this.scale,
    };
  }

  private listen(): void {
    const vp = this.viewport;
    // The wheel zooms with ctrl or meta (a trackpad's pinch comes as ctrl+wheel) or once the
    // chart has focus; otherwise it scrolls the page, as anywhere else.
    vp.addEventListener(
      'wheel',
      (e) => {
        if (!e.ctrlKey && !e.metaKey && document.activeElement !== vp) return;
        e.preventDefault();
        this.zoomBy(Math.exp(-e.deltaY / 300), this.toChart(e.clientX, e.clientY));
      },
      { passive: false },
    );
    vp.addEventListener('keydown', (e) => {
      const pan = 40;
      const keys: Record<string, () => void> = {
        '+': () => this.zoomBy(STEP),
        '=': () => this.zoomBy(STEP),
        '-': () => this.zoomBy(1 / STEP),
        '0': () => this.fit(),
        p: () => this.showPath(),
        ArrowLeft: () => this.panBy(pan, 0),
        ArrowRight: () => this.panBy(-pan, 0),
        ArrowUp: () => this.panBy(0, pan),
        ArrowDown: () => this.panBy(0, -pan),
      };
      const run = keys[e.key];
      if (!run || e.ctrlKey || e.metaKey || e.altKey) return;
      e.preventDefault();
      run();
    });
    // One pointer drags; two pinch (touch), about their midpoint.
    vp.addEventListener('pointerdown', (e) => {
      this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      vp.setPointerCapture(e.pointerId);
    });
    vp.addEventListener('pointermove', (e) => {
      const last = this.pointers.get(e.pointerId);
      if (!last) return;
      const now = { x: e.clientX, y: e.clientY };
      if (this.pointers.size === 1) this.panBy(now.x - last.x, now.y - last.y);
      else if (this.pointers.size === 2) {
        const other = [...this.pointers.entries()].find(([id]) => id !== e.pointerId)![1];
        this.pinch([last, other], [now, other]);
      }
      this.pointers.set(e.pointerId, now);
    });
    const up = (e: PointerEvent) => this.pointers.delete(e.pointerId);
    vp.addEventListener('pointerup', up);
    vp.addEventListener('pointercancel', up);
  }
}
