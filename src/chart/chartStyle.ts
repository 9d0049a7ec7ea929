// The chart's stylesheet, embedded in every SVG (no external assets). Everything is scoped to
// `.mc-chart` and driven by custom properties, so a page can restyle it; light by default, dark
// under `prefers-color-scheme: dark` or with the class `mc-dark` on the svg (or an ancestor),
// and `mc-light` forces light.
//
// One palette, each colour one meaning (docs/dashboard.md, "Colours"): amber is active now,
// blue visited or taken, red where a job stopped (cancelled or failed); the heat map's
// sequential violet scale (--mc-heat-lo to --mc-heat-hi) is used for nothing else, so a busy
// final state never reads as a failure; teal marks a version diff's added and renamed states.

const LIGHT = `
  --mc-fg: #1f2937; --mc-muted: #64748b; --mc-state: #f8fafc; --mc-region: transparent;
  --mc-stroke: #64748b; --mc-edge: #475569; --mc-active: #fde68a; --mc-active-stroke: #b45309;
  --mc-visited: #dbeafe; --mc-visited-stroke: #1d4ed8; --mc-taken: #1d4ed8; --mc-label-bg: #ffffff;
  --mc-stopped: #fee2e2; --mc-stopped-stroke: #b91c1c;
  --mc-heat-lo: #f3e8ff; --mc-heat-hi: #b57bf0; --mc-diff: #0f766e;`;

const DARK = `
  --mc-fg: #e5e7eb; --mc-muted: #94a3b8; --mc-state: #1e293b; --mc-region: transparent;
  --mc-stroke: #94a3b8; --mc-edge: #cbd5e1; --mc-active: #92400e; --mc-active-stroke: #fbbf24;
  --mc-visited: #1e3a8a; --mc-visited-stroke: #93c5fd; --mc-taken: #93c5fd; --mc-label-bg: #0f172a;
  --mc-stopped: #7f1d1d; --mc-stopped-stroke: #f87171;
  --mc-heat-lo: #2e1a4a; --mc-heat-hi: #7e3fc0; --mc-diff: #2dd4bf;`;

export const CHART_CSS = `
.mc-chart {${LIGHT}
  font: 12px system-ui, -apple-system, 'Segoe UI', sans-serif; color: var(--mc-fg);
}
@media (prefers-color-scheme: dark) { .mc-chart:not(.mc-light) {${DARK} } }
.mc-dark .mc-chart, .mc-chart.mc-dark {${DARK} }
.mc-chart .mc-state > rect.mc-box { fill: var(--mc-state); stroke: var(--mc-stroke); stroke-width: 1.2; }
.mc-chart .mc-compound > rect.mc-box, .mc-chart .mc-parallel > rect.mc-box { fill: none; }
.mc-chart .mc-region > rect.mc-box { fill: var(--mc-region); stroke-dasharray: 5 3; }
.mc-chart .mc-final > rect.mc-inner { fill: none; stroke: var(--mc-stroke); }
.mc-chart text { fill: var(--mc-fg); }
.mc-chart .mc-state-label { font-weight: 600; }
.mc-chart .mc-invoke { fill: var(--mc-muted); font-size: 11px; }
.mc-chart .mc-visited > rect.mc-box { fill: var(--mc-visited); stroke: var(--mc-visited-stroke); }
.mc-chart .mc-compound.mc-visited > rect.mc-box, .mc-chart .mc-parallel.mc-visited > rect.mc-box { fill: none; }
.mc-chart .mc-active > rect.mc-box { fill: var(--mc-active); stroke: var(--mc-active-stroke); stroke-width: 2.5; }
.mc-chart .mc-compound.mc-active > rect.mc-box, .mc-chart .mc-parallel.mc-active > rect.mc-box { fill: none; }
/* Where a cancelled or failed pipeline ended: not lit as running, a dashed red box. */
.mc-chart .mc-stopped > rect.mc-box { fill: var(--mc-stopped); stroke: var(--mc-stopped-stroke); stroke-width: 2.5; stroke-dasharray: 6 3; }
.mc-chart .mc-compound.mc-stopped > rect.mc-box, .mc-chart .mc-parallel.mc-stopped > rect.mc-box { fill: none; }
.mc-chart .mc-unvisited, .mc-chart .mc-untaken { opacity: 0.45; }
.mc-chart .mc-edge path { fill: none; stroke: var(--mc-edge); stroke-width: 1.2; }
.mc-chart .mc-edge.mc-taken path { stroke: var(--mc-taken); stroke-width: 2.2; }
.mc-chart .mc-edge-label-bg { fill: var(--mc-label-bg); opacity: 0.85; }
.mc-chart .mc-edge-label { font-size: 11px; }
.mc-chart .mc-arrow { fill: var(--mc-edge); }
.mc-chart .mc-diff-added > rect.mc-box, .mc-chart .mc-diff-renamed > rect.mc-box { stroke: var(--mc-diff); stroke-width: 2.5; }
.mc-chart .mc-diff-renamed > rect.mc-box { stroke-dasharray: 5 3; }
.mc-chart .mc-diff-removed > rect.mc-box { stroke: var(--mc-muted); stroke-width: 2; stroke-dasharray: 2 3; }
.mc-chart .mc-diff-removed > text.mc-state-label { text-decoration: line-through; }
/* A diff's tag on a state's top edge (dashboard diffTag.ts): teal as its box, grey when removed. */
.mc-chart .mc-diff-tag rect { fill: var(--mc-label-bg); stroke: var(--mc-diff); stroke-width: 1; }
.mc-chart .mc-diff-tag text { font-size: 10px; font-weight: 600; fill: var(--mc-diff); }
.mc-chart .mc-diff-removed > .mc-diff-tag rect { stroke: var(--mc-muted); }
.mc-chart .mc-diff-removed > .mc-diff-tag text { fill: var(--mc-muted); }
.mc-chart .mc-initial circle { fill: var(--mc-fg); }
.mc-chart .mc-initial path { fill: none; stroke: var(--mc-fg); stroke-width: 1.2; }
`;
