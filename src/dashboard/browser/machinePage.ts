// Machines: each machine drawn once, each state coloured by how many jobs sit in it now and
// labelled with how long jobs dwell there (p50/p95), refreshed every few seconds (a fleet's
// counts change too often for per-event updates to be worth their cost). A machine with several
// versions shows two of them side by side (the newest and the one before, by default; both
// picked from selects) with what changed between them: states added, removed and renamed
// (src/chart/chartDiff.ts), marked on both charts and listed. Every simple job runs the same
// lifecycle: it is drawn once, with a select for whose jobs it counts.

import { DASH, getJson } from './api.js';
import { applyHeat, drawChart } from './chart.js';
import { chartLegend } from './chartLegend.js';
import { diffTag } from './diffTag.js';
import { h, notice } from './dom.js';
import type { Page } from './page.js';
import type { ChartDiff, Heat } from './types.js';
import type { Meta } from './jobsPage.js';

type Machine = Meta['machines'][number];

export async function machinePage(
  page: Page,
  meta: Meta,
  only?: { name: string; version?: number },
): Promise<void> {
  const list = meta.machines.filter((m) => !only || m.name === only.name);
  page.root.replaceChildren(h('h1', {}, only ? `Machine ${only.name}` : 'Machines'));
  if (list.length === 0) {
    page.root.append(
      notice(only ? `No machine named ${only.name} is registered.` : 'No machines registered yet.'),
    );
    return;
  }
  const cards: MachineCard[] = [];
  const simple = list.filter((m) => m.kind === 'job');
  for (const m of list.filter((m) => m.kind !== 'job')) cards.push(new MachineCard(page, [m], only?.version));
  if (simple.length) cards.push(new MachineCard(page, simple, only?.version));
  page.root.append(...cards.map((c) => c.el));
  const refresh = async () => {
    for (const c of cards) await c.refresh();
  };
  const tick = setInterval(() => void refresh(), 5000);
  page.onLeave(() => clearInterval(tick));
  await Promise.all(cards.map((c) => c.show()));
}

/** One machine (or every simple job, sharing the lifecycle): its chart(s), heat and diff. */
class MachineCard {
  readonly el: HTMLElement;
  private readonly body = h('div', { class: 'versions' });
  private readonly diffBox = h('div', { class: 'diff' });
  private readonly note = h('p', { class: 'muted' });
  private readonly pick: HTMLSelectElement | null = null;
  private readonly compare: HTMLSelectElement | null = null;
  private readonly jobPick: HTMLSelectElement | null = null;
  private shown: { version: number; box: HTMLElement }[] = [];

  constructor(
    private readonly page: Page,
    private readonly machines: Machine[],
    wanted?: number,
  ) {
    const m = machines[0]!;
    const lifecycle = m.kind === 'job';
    const versions = [...m.versions].sort((a, b) => b - a);
    const controls: HTMLElement[] = [];
    if (lifecycle) {
      this.jobPick = h(
        'select',
        { 'data-job-select': '', onchange: () => void this.show() },
        machines.map((j) => h('option', { value: j.name }, j.name)),
      );
      controls.push(h('label', {}, 'jobs of ', this.jobPick));
    } else if (versions.length > 1) {
      const first = wanted !== undefined && versions.includes(wanted) ? wanted : versions[0]!;
      this.pick = h(
        'select',
        { 'data-version-select': '', onchange: () => void this.show() },
        versions.map((v) => h('option', { value: v, selected: v === first }, `version ${v}`)),
      );
      const before = versions.find((v) => v < first) ?? versions.find((v) => v !== first);
      this.compare = h(
        'select',
        { 'data-compare-select': '', onchange: () => void this.show() },
        h('option', { value: '' }, 'nothing'),
        versions.map((v) => h('option', { value: v, selected: v === before }, `version ${v}`)),
      );
      controls.push(h('label', {}, 'show ', this.pick), h('label', {}, 'compared with ', this.compare));
    }
    const title = lifecycle
      ? h(
          'h2',
          {},
          'Simple jobs ',
          h('span', { class: 'muted' }, `(the shared lifecycle: ${machines.map((j) => j.name).join(', ')})`),
        )
      : h(
          'h2',
          {},
          h('a', { href: `#/machine/${encodeURIComponent(m.name)}` }, m.name),
          ' ',
          h('span', { class: 'muted' }, `version${versions.length > 1 ? 's' : ''} ${versions.join(', ')}`),
          ' ',
          h('a', { href: `#/jobs?machine=${encodeURIComponent(m.name)}`, class: 'muted' }, 'jobs'),
        );
    this.el = h(
      'section',
      {
        class: 'panel',
        'aria-label': lifecycle ? 'Simple jobs' : `Machine ${m.name}`,
        'data-machine-card': lifecycle ? '(simple jobs)' : m.name,
      },
      title,
      controls.length ? h('div', { class: 'filters' }, controls) : null,
      this.body,
      this.diffBox,
      this.note,
    );
    if (!this.pick && !lifecycle)
      this.pickedVersion = wanted && versions.includes(wanted) ? wanted : versions[0]!;
  }

  private pickedVersion: number | null = null;

  /** The machine whose heat is shown (a simple job's name picks whose lifecycle counts). */
  private get name(): string {
    return this.jobPick?.value ?? this.machines[0]!.name;
  }

  /** The versions drawn, oldest first. */
  private versions(): number[] {
    if (this.jobPick) {
      const m = this.machines.find((j) => j.name === this.name)!;
      return [Math.max(...m.versions)];
    }
    const main = this.pick ? Number(this.pick.value) : this.pickedVersion!;
    const other = this.compare?.value ? Number(this.compare.value) : null;
    return other === null || other === main ? [main] : [main, other].sort((a, b) => a - b);
  }

  /** Draws the versions picked (each chart laid out by the server once, cached), then their heat and diff. */
  async show(): Promise<void> {
    const versions = this.versions();
    const name = this.name;
    this.body.replaceChildren();
    this.body.classList.toggle('two', versions.length === 2);
    this.shown = versions.map((version) => {
      const box = h('div', { 'data-machine': `${name}@${version}` });
      this.body.append(
        h('div', { class: 'version' }, versions.length > 1 ? h('h3', {}, `${name}@${version}`) : null, box),
      );
      return { version, box };
    });
    try {
      await Promise.all(this.shown.map((s) => drawChart(s.box, name, s.version, { legend: 'heat' })));
      if (versions.length === 2) await this.showDiff(name, versions[0]!, versions[1]!);
      else this.diffBox.replaceChildren();
      await this.refresh();
    } catch (err) {
      if (!this.page.left) this.body.replaceChildren(notice((err as Error).message, 'error'));
    }
  }

  async refresh(): Promise<void> {
    const name = this.name;
    const notes: string[] = [];
    for (const s of this.shown) {
      try {
        const heat = await getJson<Heat>(`${DASH}/machines/${encodeURIComponent(name)}/${s.version}/heat`);
        if (this.page.left) return;
        applyHeat(s.box, heat);
        const now = Object.values(heat.states).reduce((n, st) => n + st.count, 0);
        notes.push(
          `${this.shown.length > 1 ? `version ${s.version}: ` : ''}${now} unfinished jobs now; dwell times from the ${heat.sampled} most recent jobs' logs.`,
        );
      } catch (err) {
        if (this.page.left) return;
        notes.push((err as Error).message);
      }
    }
    this.note.textContent = notes.join(' ');
  }

  /** Marks what changed on both charts (older: removed, renamed; newer: added, renamed) and lists it. */
  private async showDiff(name: string, from: number, to: number): Promise<void> {
    const d = await getJson<ChartDiff>(
      `${DASH}/machines/${encodeURIComponent(name)}/diff?from=${from}&to=${to}`,
    );
    const [older, newer] = this.shown;
    // Each mark: its class (outline), the words on the chart (diffTag.ts) and in the label.
    const mark = (
      box: HTMLElement | undefined,
      ids: string[],
      cls: string,
      tag: (id: string) => string,
      label: (id: string) => string,
    ) => {
      for (const id of ids) {
        const g = box?.querySelector<SVGGElement>(`[data-state-id="${CSS.escape(id)}"]`);
        if (!g) continue;
        g.classList.add(cls);
        g.dataset.diff = cls.replace('mc-diff-', '');
        diffTag(g, tag(id));
        g.dataset.baseLabel = `${g.dataset.baseLabel ?? ''}, ${label(id)}`;
        g.setAttribute('aria-label', g.dataset.baseLabel);
      }
    };
    // A renamed state keeps its parent (chartDiff pairs no other): its own name says which.
    const key = (id: string | undefined) => id?.split('.').pop() ?? '';
    mark(
      older?.box,
      d.removed,
      'mc-diff-removed',
      () => 'removed',
      () => `removed in version ${to}`,
    );
    mark(
      newer?.box,
      d.added,
      'mc-diff-added',
      () => 'added',
      () => `added in version ${to}`,
    );
    const renamedTo = new Map(d.renamed.map((r) => [r.to, r.from]));
    const renamedFrom = new Map(d.renamed.map((r) => [r.from, r.to]));
    mark(
      older?.box,
      [...renamedFrom.keys()],
      'mc-diff-renamed',
      (id) => `→ ${key(renamedFrom.get(id))}`,
      (id) => `renamed to ${renamedFrom.get(id)} in version ${to}`,
    );
    mark(
      newer?.box,
      [...renamedTo.keys()],
      'mc-diff-renamed',
      (id) => `was ${key(renamedTo.get(id))}`,
      (id) => `renamed from ${renamedTo.get(id)}`,
    );
    const items = [
      ...d.added.map((id) =>
        h('li', { 'data-diff': 'added', 'data-state': id }, '+ added ', h('code', {}, id)),
      ),
      ...d.removed.map((id) =>
        h('li', { 'data-diff': 'removed', 'data-state': id }, '− removed ', h('code', {}, id)),
      ),
      ...d.renamed.map((r) =>
        h(
          'li',
          { 'data-diff': 'renamed', 'data-state': r.to },
          '~ renamed ',
          h('code', {}, r.from),
          ' → ',
          h('code', {}, r.to),
        ),
      ),
    ];
    this.diffBox.replaceChildren(
      h('h3', {}, `What changed from version ${from} to ${to}`),
      items.length
        ? h('ul', { class: 'diff-list' }, items)
        : h('p', { class: 'muted' }, 'No state added, removed or renamed.'),
      h(
        'p',
        { class: 'muted' },
        'Renamed is a guess: a state removed and one added with the same parent, kind and transitions in and out. A redeploy maps such states with migrate.',
      ),
      chartLegend('diff'),
    );
  }
}
