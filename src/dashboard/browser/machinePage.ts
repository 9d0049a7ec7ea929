// Machines: every registered machine and version drawn, each state coloured by how many jobs
// sit in it now and labelled with how long jobs dwell there (p50/p95), refreshed every few
// seconds (a fleet's counts change too often for per-event updates to be worth their cost).

import { DASH, getJson } from './api.js';
import { applyHeat, drawChart } from './chart.js';
import { h, notice } from './dom.js';
import type { Page } from './page.js';
import type { Heat } from './types.js';
import type { Meta } from './jobsPage.js';

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
  const boxes: { machine: string; version: number; box: HTMLElement; note: HTMLElement }[] = [];
  for (const m of list) {
    for (const version of [...m.versions].sort((a, b) => b - a)) {
      if (only?.version !== undefined && version !== only.version) continue;
      const box = h('div', { 'data-machine': `${m.name}@${version}` });
      const note = h('p', { class: 'muted' });
      page.root.append(
        h(
          'section',
          { class: 'panel', 'aria-label': `Machine ${m.name} version ${version}` },
          h(
            'h2',
            {},
            h('a', { href: `#/machine/${encodeURIComponent(m.name)}/${version}` }, `${m.name}@${version}`),
            ' ',
            h('a', { href: `#/jobs?machine=${encodeURIComponent(m.name)}`, class: 'muted' }, 'jobs'),
          ),
          box,
          note,
        ),
      );
      boxes.push({ machine: m.name, version, box, note });
    }
  }
  const drawn = new Set<HTMLElement>();
  const load = async () => {
    for (const b of boxes) {
      try {
        if (!drawn.has(b.box)) {
          await drawChart(b.box, b.machine, b.version);
          drawn.add(b.box);
        }
        const heat = await getJson<Heat>(
          `${DASH}/machines/${encodeURIComponent(b.machine)}/${b.version}/heat`,
        );
        if (page.left) return;
        applyHeat(b.box, heat);
        const now = Object.values(heat.states).reduce((n, s) => n + s.count, 0);
        b.note.textContent = `${now} unfinished jobs now; dwell times from the ${heat.sampled} most recent jobs' logs.`;
      } catch (err) {
        if (page.left) return;
        b.box.replaceChildren(notice((err as Error).message, 'error'));
      }
    }
  };
  const tick = setInterval(() => void load(), 5000);
  page.onLeave(() => clearInterval(tick));
  await load();
}
