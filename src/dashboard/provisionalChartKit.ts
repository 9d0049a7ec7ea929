// PROVISIONAL: a stand-in for the chart module (src/chart/) until it is merged: states drawn as
// nested boxes in rows, no edges, no layout library. Replaced by chart/'s machineGraph,
// layoutGraph, toSvg, jobMarks and nextEvents at integration.

import type { ChartKit, Marks } from './chartKit.js';

interface StateJson {
  id: string;
  key: string;
  type?: string;
  states?: Record<string, StateJson>;
  on?: Record<string, unknown>;
}

function idsOf(node: StateJson, value: unknown): string[] {
  if (typeof value === 'string') {
    const child = node.states?.[value];
    return child ? [child.id] : [];
  }
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
      const child = node.states?.[k];
      return child ? [child.id, ...idsOf(child, v)] : [];
    });
  }
  return [];
}

function find(node: StateJson, id: string): StateJson[] {
  if (node.id === id) return [node];
  for (const c of Object.values(node.states ?? {})) {
    const p = find(c, id);
    if (p.length) return [node, ...p];
  }
  return [];
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function draw(node: StateJson, x: number, y: number): { svg: string; w: number; h: number } {
  const kids = Object.values(node.states ?? {});
  let inner = '';
  let cx = x + 10;
  let h = 0;
  for (const k of kids) {
    const d = draw(k, cx, y + 28);
    inner += d.svg;
    cx += d.w + 10;
    h = Math.max(h, d.h);
  }
  const w = kids.length ? cx - x : Math.max(110, node.key.length * 8 + 20);
  const height = kids.length ? h + 38 : 40;
  const label = `${node.type === 'final' ? 'Final state' : 'State'} ${node.key}`;
  return {
    svg: `<g data-state-id="${esc(node.id)}" data-active="false" role="img" aria-label="${esc(label)}"><rect x="${x}" y="${y}" width="${w}" height="${height}" rx="6"/><text x="${x + 8}" y="${y + 18}">${esc(node.key)}</text>${inner}</g>`,
    w,
    h: height,
  };
}

export const provisionalChartKit: ChartKit = {
  async svg(definition) {
    const d = draw(definition as StateJson, 10, 10);
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${d.w + 20}" height="${d.h + 20}" viewBox="0 0 ${d.w + 20} ${d.h + 20}">${d.svg}</svg>`;
  },
  marks(definition, job, log, present): Marks {
    const root = definition as StateJson;
    const states: Record<string, number> = {};
    let last: unknown = null;
    for (const e of log) {
      if (e.type !== 'state') continue;
      last = e.state;
      for (const id of idsOf(root, e.state)) states[id] = (states[id] ?? 0) + 1;
    }
    const value = present ? job.state : last;
    return { active: idsOf(root, value), states, transitions: {} };
  },
  activeIds(definition, value) {
    return idsOf(definition as StateJson, value);
  },
  nextEvents(definition, job) {
    const root = definition as StateJson;
    const out = new Set<string>();
    for (const id of idsOf(root, job.state)) {
      for (const n of find(root, id))
        for (const ev of Object.keys(n.on ?? {})) if (!ev.startsWith('xstate.')) out.add(ev);
    }
    return [...out];
  },
};
