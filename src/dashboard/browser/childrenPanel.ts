// A job's children as a tree: each child with its status, linking to its own page, and its own
// children loaded when opened; pages of 50, so thousands of children stay usable. Below the
// tree, each machine the children run is drawn once, its states coloured by how many of the
// children shown sit there now.

import { DASH, getJson, qs } from './api.js';
import { applyHeat, drawChart } from './chart.js';
import { h, notice, statusBadge } from './dom.js';
import { stateText } from './format.js';

export interface ChildRow {
  id: string;
  queue: string;
  status: string;
  machine: string;
  version: number;
  state: unknown;
  /** Full ids of its active states, when its machine has a chart. */
  active: string[] | null;
}

interface ChildrenPage {
  jobs: ChildRow[];
  /** Pass back to read the next page; null at the end. */
  cursor: string | null;
  total: number;
}

export class ChildrenPanel {
  readonly el = h('section', { class: 'panel', 'aria-label': 'Children' });
  private readonly summary = h('p', { class: 'muted' });
  private readonly root: ChildList;
  private readonly charts = h('div');
  private drawn = new Map<string, HTMLElement>();
  private listeners = new Set<() => void>();

  constructor(jobId: string) {
    this.root = new ChildList(jobId, () => void this.drawCharts());
    this.el.append(h('h2', {}, 'Children'), this.summary, this.root.el, this.charts);
  }

  async refresh(total: number, finished: number): Promise<void> {
    this.el.hidden = total === 0;
    if (total === 0) return;
    this.summary.textContent = `${finished} of ${total} finished`;
    await this.root.refresh();
    for (const fn of this.listeners) fn();
  }

  /** Calls `fn` after each refresh; returns the unsubscribe. */
  onRefresh(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The queues the children shown live on (the page follows their event streams). */
  queues(): string[] {
    return [...new Set(this.root.rows.map((r) => r.queue))];
  }

  private async drawCharts(): Promise<void> {
    const byMachine = new Map<string, { machine: string; version: number; states: Record<string, number> }>();
    for (const r of this.root.rows) {
      if (!r.active) continue;
      const key = `${r.machine}@${r.version}`;
      const m = byMachine.get(key) ?? { machine: r.machine, version: r.version, states: {} };
      for (const id of r.active) m.states[id] = (m.states[id] ?? 0) + 1;
      byMachine.set(key, m);
    }
    for (const [key, m] of byMachine) {
      let box = this.drawn.get(key);
      if (!box) {
        box = h('div', { 'data-child-chart': key });
        this.drawn.set(key, box);
        this.charts.append(h('h2', {}, `Child machine ${key}`), box);
        await drawChart(box, m.machine, m.version, { legend: 'heat' });
      }
      const states = Object.fromEntries(
        Object.entries(m.states).map(([id, count]) => [id, { count, p50: null, p95: null }]),
      );
      applyHeat(box, { machine: m.machine, version: m.version, states, sampled: 0 });
    }
  }
}

class ChildList {
  readonly el = h('ul', { class: 'tree' });
  rows: ChildRow[] = [];
  /** How many pages of 50 are shown ("More children" adds one); kept across refreshes. */
  private pages = 1;
  private running: Promise<void> | null = null;
  private again = false;
  private readonly open = new Map<string, ChildList>();

  constructor(
    private readonly parentId: string,
    private readonly changed: () => void,
  ) {}

  /**
   * Reads again every page shown (statuses change live). Live updates come faster than a read
   * of many pages: one read runs at a time, and a refresh asked for meanwhile runs once after it
   * (overlapping reads used to race and drop the pages "More children" had added).
   */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.read();
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async read(): Promise<void> {
    const rows: ChildRow[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < this.pages; i++) {
      const page: ChildrenPage = await getJson<ChildrenPage>(
        `${DASH}/jobs/${encodeURIComponent(this.parentId)}/children${qs({ cursor, limit: 50 })}`,
      );
      rows.push(...page.jobs);
      cursor = page.cursor;
      if (!cursor) break;
    }
    this.rows = rows;
    this.render(cursor);
    for (const list of this.open.values()) await list.refresh();
    this.changed();
  }

  private render(more: string | null): void {
    this.el.replaceChildren(
      ...(this.rows.length === 0 ? [h('li', { class: 'muted' }, 'No children.')] : []),
      ...this.rows.map((r) => this.row(r)),
      ...(more
        ? [
            h(
              'li',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'ghost',
                  onclick: () => {
                    this.pages++;
                    void this.refresh();
                  },
                },
                'More children',
              ),
            ),
          ]
        : []),
    );
  }

  private row(r: ChildRow): HTMLLIElement {
    const sub = this.open.get(r.id);
    const toggle = h(
      'button',
      {
        type: 'button',
        class: 'ghost',
        'aria-expanded': sub ? 'true' : 'false',
        'aria-label': `Children of ${r.id}`,
      },
      sub ? '▾' : '▸',
    );
    toggle.addEventListener('click', () => {
      if (this.open.has(r.id)) this.open.delete(r.id);
      else this.open.set(r.id, new ChildList(r.id, this.changed));
      void this.refresh().catch((err: Error) => this.el.append(notice(err.message, 'error')));
    });
    return h(
      'li',
      { 'data-child-id': r.id, 'data-status': r.status },
      toggle,
      ' ',
      statusBadge(r.status),
      ' ',
      h('a', { href: `#/job/${encodeURIComponent(r.id)}`, class: 'mono' }, r.id),
      ' ',
      h('span', { class: 'muted' }, `${r.machine} · ${stateText(r.state)}`),
      sub?.el ?? null,
    );
  }
}
