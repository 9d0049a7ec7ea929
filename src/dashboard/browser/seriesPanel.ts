// A queue over time on its overview card: four charts of GET /queues/:queue/series (jobs ended
// per point, failure rate, p50/p95 wait, p50/p95 run) over the window the page chose, redrawn at
// their box's width when it changes (a window resized, a phone turned).

import { getJson } from './api.js';
import { h, notice } from './dom.js';
import { seriesFigure, type ChartSpec } from './seriesChart.js';
import type { QueueSeries, SeriesWindow } from './types.js';

/** A y label of a duration: short, so that it fits the axis's 46 px. */
export function shortMs(v: number): string {
  if (v === 0) return '0';
  if (v < 1000) return `${Math.round(v)} ms`;
  if (v < 60_000) return `${+(v / 1000).toFixed(1)} s`;
  if (v < 3_600_000) return `${+(v / 60_000).toFixed(1)} min`;
  return `${+(v / 3_600_000).toFixed(1)} h`;
}

const count = (v: number): string => (Number.isInteger(v) ? String(v) : v.toFixed(1));
const percent = (v: number): string => `${Math.round(v * 100)}%`;

export class SeriesPanel {
  readonly el: HTMLElement;
  private readonly grid = h('div', { class: 'series-grid' });
  private readonly error = h('div');
  private data: QueueSeries | null = null;
  private drawnWidth = 0;
  private readonly resize: ResizeObserver;

  constructor(private readonly queue: string) {
    this.el = h(
      'div',
      {
        class: 'series',
        role: 'group',
        'aria-label': `Queue ${queue} over time`,
        'data-series-queue': queue,
      },
      this.grid,
      this.error,
    );
    // Redraw at the new width (the SVGs are drawn in px, not scaled): only when it changed.
    this.resize = new ResizeObserver(() => {
      if (this.grid.clientWidth !== this.drawnWidth) this.draw();
    });
    this.resize.observe(this.grid);
  }

  async refresh(window: SeriesWindow): Promise<void> {
    try {
      this.data = await getJson<QueueSeries>(
        `/queues/${encodeURIComponent(this.queue)}/series?window=${window}`,
      );
      this.error.replaceChildren();
      this.draw();
    } catch (err) {
      this.error.replaceChildren(notice(String((err as Error).message), 'error'));
    }
  }

  close(): void {
    this.resize.disconnect();
  }

  private draw(): void {
    const d = this.data;
    if (!d || !this.grid.isConnected) return;
    this.drawnWidth = this.grid.clientWidth;
    // One column under 2 x 340 px (the grid's own breakpoint, styles.css .series-grid).
    const cols = this.drawnWidth >= 700 ? 2 : 1;
    const width = (this.drawnWidth - (cols - 1) * 16) / cols;
    const at = d.points.map((p) => p.at);
    const per = d.stepMs === 60_000 ? 'per minute' : `per ${d.stepMs / 60_000} minutes`;
    const specs: ChartSpec[] = [
      {
        id: 'throughput',
        title: 'Jobs ended',
        unit: per,
        kind: 'bars',
        at,
        stepMs: d.stepMs,
        minTop: 5,
        format: count,
        series: [
          { name: 'done', cls: 'sc-done', values: d.points.map((p) => p.done) },
          { name: 'failed', cls: 'sc-failed', values: d.points.map((p) => p.failed) },
          { name: 'cancelled', cls: 'sc-cancelled', values: d.points.map((p) => p.cancelled) },
        ],
      },
      {
        id: 'failure-rate',
        title: 'Failure rate',
        unit: 'failed / (done + failed)',
        kind: 'lines',
        at,
        stepMs: d.stepMs,
        minTop: 1,
        format: percent,
        series: [{ name: 'failure rate', cls: 'sc-failed', values: d.points.map((p) => p.failureRate) }],
      },
      latency('wait', 'Wait', 'created to claim', d, at),
      latency('run', 'Run', 'claim to end', d, at),
    ];
    this.grid.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
    this.grid.replaceChildren(...specs.map((s) => seriesFigure(s, width)));
  }
}

function latency(key: 'wait' | 'run', title: string, unit: string, d: QueueSeries, at: number[]): ChartSpec {
  return {
    id: key,
    title: `${title} time`,
    unit: `${unit}, p50 and p95`,
    kind: 'lines',
    at,
    stepMs: d.stepMs,
    minTop: 10,
    format: shortMs,
    series: [
      { name: 'p50', cls: 'sc-p50', values: d.points.map((p) => p[key]?.p50 ?? null) },
      { name: 'p95', cls: 'sc-p95', values: d.points.map((p) => p[key]?.p95 ?? null) },
    ],
  };
}
