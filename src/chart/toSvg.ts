// A laid-out chart as a self-contained SVG string (server side, no DOM): each state a `<g>`
// carrying `data-state-id` (its full XState id), `data-active="true"` when active and
// `data-visits`, with an accessible label; each transition a `<g>` carrying `data-event`. The
// dashboard draws the same markup and restyles it through chartStyle.ts's classes; a job's marks
// change attributes and classes only, never positions.

import type { ChartMarks } from '../store/chartModel.js';
import type { ChartLayout, LayoutNode, Point } from './layoutGraph.js';
import { CHART_CSS } from './chartStyle.js';

export function escapeXml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`,
  );
}

const r1 = (n: number) => Math.round(n * 10) / 10;
const path = (points: Point[]) => points.map((p, i) => `${i ? 'L' : 'M'}${r1(p.x)},${r1(p.y)}`).join(' ');

function stateLabel(n: LayoutNode, active: boolean, visits: number | undefined, ended?: string): string {
  const parts = [
    `${n.kind === 'final' ? 'final state' : n.region ? 'region' : 'state'} ${n.label} (${n.id})`,
  ];
  if (active) parts.push('active');
  if (ended) parts.push(`stopped here (${ended})`);
  if (visits !== undefined) parts.push(`entered ${visits} ${visits === 1 ? 'time' : 'times'}`);
  return parts.join(', ');
}

/**
 * @example const svg = toSvg(await layoutGraph(graph), jobMarks(record, log, graph));
 */
export function toSvg(layout: ChartLayout, marks?: ChartMarks): string {
  const active = new Set(marks?.active ?? []);
  const stopped = new Set(marks?.stopped ?? []);
  const arrow = `mc-arrow-${layout.name.replace(/[^A-Za-z0-9_-]/g, '_')}-${layout.version}`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="mc-chart" viewBox="0 0 ${r1(layout.width)} ${r1(layout.height)}" width="${r1(layout.width)}" height="${r1(layout.height)}" role="img" aria-label="${escapeXml(`State chart of ${layout.name}@${layout.version}`)}" data-machine="${escapeXml(layout.name)}" data-version="${layout.version}">`,
    `<style>${CHART_CSS}</style>`,
    `<defs><marker id="${arrow}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="mc-arrow" d="M0,0 L10,5 L0,10 z"/></marker></defs>`,
    '<g class="mc-states">',
  ];
  // Parents before children (the layout lists them depth first), so inner boxes draw on top.
  for (const n of layout.nodes) {
    const visits = marks ? (marks.visits[n.id] ?? 0) : undefined;
    const isActive = active.has(n.id);
    const isStopped = stopped.has(n.id);
    const classes = ['mc-state', `mc-${n.kind}`];
    if (n.region) classes.push('mc-region');
    if (isActive) classes.push('mc-active');
    if (isStopped) classes.push('mc-stopped');
    // The root holds everything: it is never dimmed.
    if (marks && n.depth > 0) classes.push(visits || isActive || isStopped ? 'mc-visited' : 'mc-unvisited');
    const attrs = [
      `class="${classes.join(' ')}"`,
      `data-state-id="${escapeXml(n.id)}"`,
      `data-kind="${n.kind}"`,
      isActive ? 'data-active="true"' : '',
      isStopped ? 'data-stopped="true"' : '',
      visits !== undefined ? `data-visits="${visits}"` : '',
      'role="group"',
      `aria-label="${escapeXml(stateLabel(n, isActive, visits, isStopped ? (marks?.ended ?? 'ended') : undefined))}"`,
    ].filter(Boolean);
    out.push(`<g ${attrs.join(' ')}>`);
    const leaf = n.kind !== 'compound' && n.kind !== 'parallel';
    out.push(
      `<rect class="mc-box" x="${r1(n.x)}" y="${r1(n.y)}" width="${r1(n.width)}" height="${r1(n.height)}" rx="${leaf ? 8 : 10}"/>`,
    );
    if (n.kind === 'final')
      out.push(
        `<rect class="mc-inner" x="${r1(n.x + 3)}" y="${r1(n.y + 3)}" width="${r1(n.width - 6)}" height="${r1(n.height - 6)}" rx="6"/>`,
      );
    const cx = leaf ? n.x + n.width / 2 : n.x + 10;
    const anchor = leaf ? 'middle' : 'start';
    const labelY = n.y + (leaf ? 20 : 18);
    out.push(
      `<text class="mc-state-label" x="${r1(cx)}" y="${r1(labelY)}" text-anchor="${anchor}">${escapeXml(n.label)}${visits ? ` ×${visits}` : ''}</text>`,
    );
    n.invokeLines.forEach((line, i) =>
      out.push(
        `<text class="mc-invoke" x="${r1(cx)}" y="${r1(labelY + 16 * (i + 1))}" text-anchor="${anchor}">${escapeXml(line)}</text>`,
      ),
    );
    out.push('</g>');
  }
  out.push('</g>', '<g class="mc-initials">');
  for (const i of layout.initials) {
    out.push(
      `<g class="mc-initial" data-initial-of="${escapeXml(i.parent)}" data-target="${escapeXml(i.target)}"><circle cx="${r1(i.cx)}" cy="${r1(i.cy)}" r="${i.r}"/><path d="${path(i.points)}" marker-end="url(#${arrow})"/></g>`,
    );
  }
  out.push('</g>', '<g class="mc-edges">');
  for (const e of layout.edges) {
    const visits = marks?.edgeVisits[e.edgeId];
    const classes = ['mc-edge'];
    if (marks) classes.push(visits ? 'mc-taken' : 'mc-untaken');
    const attrs = [
      `class="${classes.join(' ')}"`,
      `data-edge-id="${escapeXml(e.id)}"`,
      `data-transition-id="${escapeXml(e.edgeId)}"`,
      `data-event="${escapeXml(e.event)}"`,
      `data-source="${escapeXml(e.source)}"`,
      `data-target="${escapeXml(e.target)}"`,
      marks ? `data-visits="${visits ?? 0}"` : '',
    ].filter(Boolean);
    out.push(`<g ${attrs.join(' ')}>`, `<path d="${path(e.points)}" marker-end="url(#${arrow})"/>`);
    if (e.labelBox) {
      const b = e.labelBox;
      const text = e.label + (visits ? ` ×${visits}` : '');
      out.push(
        `<rect class="mc-edge-label-bg" x="${r1(b.x)}" y="${r1(b.y)}" width="${r1(b.width)}" height="${r1(b.height)}" rx="3"/>`,
        `<text class="mc-edge-label" x="${r1(b.x + b.width / 2)}" y="${r1(b.y + b.height - 4)}" text-anchor="middle">${escapeXml(text)}</text>`,
      );
    }
    out.push('</g>');
  }
  out.push('</g>', '</svg>');
  return `${out.join('\n')}\n`;
}
