import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  layoutGraph,
  machineGraph,
  mermaidIds,
  toDot,
  toJson,
  toMermaid,
  toSvg,
} from '../../src/chart/index.js';
import type { ChartMarks, MachineGraph } from '../../src/chart/index.js';
import { parseStateDiagram } from '../support/mermaidStateDiagram.js';
import { approval, ingest, review, simple, splitMerge } from './fixtures/machines.js';

const all = { approval, ingest, splitMerge, simple, review };

const attrs = (svg: string, name: string) =>
  [...svg.matchAll(new RegExp(`${name}="([^"]*)"`, 'g'))].map((m) => m[1]!);

/** Every tag closed in order (the SVG is well formed as far as its elements go). */
function assertBalanced(svg: string): void {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
    const [, closing, tag, selfClosing] = m;
    if (selfClosing) continue;
    if (closing) assert.equal(stack.pop(), tag, `</${tag}> closes the wrong element`);
    else stack.push(tag!);
  }
  assert.deepEqual(stack, [], 'unclosed elements');
}

const marksFor = (g: MachineGraph): ChartMarks => {
  const leaf = g.nodes.find((n) => n.parent && n.children.length === 0)!;
  const e = g.edges[0]!;
  return {
    active: [leaf.id],
    visits: { [leaf.id]: 2, [e.source]: 1 },
    edgeVisits: { [e.id]: 3 },
  };
};

describe('toSvg', () => {
  for (const name of Object.keys(all)) {
    it(`draws ${name} with a data-state-id for every state and a data-event for every edge`, async () => {
      const g = machineGraph(all[name as keyof typeof all]);
      const svg = toSvg(await layoutGraph(g));
      assertBalanced(svg);
      assert.deepEqual(attrs(svg, 'data-state-id').sort(), g.nodes.map((n) => n.id).sort());
      assert.equal(
        attrs(svg, 'data-event').length,
        g.edges.reduce((n, e) => n + Math.max(1, e.targets.length), 0),
      );
      assert.equal(
        attrs(svg, 'aria-label').length,
        g.nodes.length + 1,
        'every state and the chart are labelled',
      );
      assert.doesNotMatch(svg, /data-active/, 'nothing is active without marks');
      // Self-contained: no external fonts, images, stylesheets or scripts.
      assert.doesNotMatch(svg, /https?:\/\/(?!www\.w3\.org\/2000\/svg)|@import|<image|<script|xlink:href/);
    });
  }

  it("marks a job's active state, visit counts and the transitions taken", async () => {
    const g = machineGraph(approval);
    const svg = toSvg(await layoutGraph(g), {
      active: ['approval.awaitingDecision'],
      visits: { 'approval.requesting': 1, 'approval.awaitingDecision': 1 },
      edgeVisits: { 'approval.requesting:0': 1 },
    });
    const stateTag = (id: string) =>
      new RegExp(`<g [^>]*data-state-id="${id.replace('.', '\\.')}"[^>]*>`).exec(svg)?.[0] ?? '';
    assert.match(stateTag('approval.awaitingDecision'), /data-active="true"/);
    assert.match(
      stateTag('approval.awaitingDecision'),
      /aria-label="state awaitingDecision \(approval\.awaitingDecision\), active, entered 1 time"/,
    );
    assert.match(stateTag('approval.requesting'), /data-visits="1"/);
    assert.doesNotMatch(stateTag('approval.requesting'), /data-active/);
    assert.match(stateTag('approval.publishing'), /data-visits="0"[^>]*/);
    assert.match(stateTag('approval.publishing'), /mc-unvisited/);
    assert.match(svg, /<g class="mc-edge mc-taken"[^>]*data-source="approval\.requesting"/);
    assert.match(svg, /<g class="mc-edge mc-untaken"[^>]*data-event="APPROVE"/);
  });

  it('draws the same boxes with or without marks (a status change never moves the chart)', async () => {
    const layout = await layoutGraph(machineGraph(review));
    const boxes = (svg: string) => [...svg.matchAll(/<rect class="mc-box"[^>]*>/g)].map((m) => m[0]);
    assert.deepEqual(boxes(toSvg(layout)), boxes(toSvg(layout, marksFor(machineGraph(review)))));
  });
});

describe('toMermaid (checked by parsing the stateDiagram-v2 text)', () => {
  for (const name of Object.keys(all)) {
    it(`draws ${name} with its nesting, initial and final markers and every transition`, () => {
      const g = machineGraph(all[name as keyof typeof all]);
      const mid = mermaidIds(g);
      const d = parseStateDiagram(toMermaid(g));
      assert.equal(d.states.size, g.nodes.length);
      for (const n of g.nodes) {
        const s = d.states.get(mid.get(n.id)!);
        assert.ok(s, `state ${n.id}`);
        assert.equal(s.label, n.key);
        assert.equal(s.parent, n.parent ? mid.get(n.parent) : null, `${n.id} is declared in its parent`);
        assert.equal(s.composite, n.children.length > 0);
        if (n.kind === 'parallel') assert.equal(s.regions, n.children.length, `${n.id}: a region per child`);
        if (n.initial)
          assert.ok(
            d.transitions.some(
              (t) => t.from === '[*]' && t.to === mid.get(n.initial!) && t.scope === mid.get(n.id),
            ),
            `initial of ${n.id}`,
          );
        if (n.kind === 'final')
          assert.ok(
            d.transitions.some((t) => t.from === mid.get(n.id) && t.to === '[*]'),
            `final ${n.id}`,
          );
      }
      const drawn = d.transitions.filter((t) => t.from !== '[*]' && t.to !== '[*]');
      const expected = g.edges.flatMap((e) =>
        (e.targets.length ? e.targets : [e.source]).map((t) => `${mid.get(e.source)}->${mid.get(t)}`),
      );
      assert.deepEqual(drawn.map((t) => `${t.from}->${t.to}`).sort(), expected.sort());
    });
  }

  it('labels transitions with the event, the guard and the delay', () => {
    const d = parseStateDiagram(toMermaid(machineGraph(review)));
    const labels = d.transitions.map((t) => t.label).filter(Boolean);
    assert.ok(labels.includes('OK [and(signed, not(vetoed))]'), labels.join(' | '));
    assert.ok(labels.includes('after 5000ms'));
    assert.ok(labels.includes('done(check)'));
    assert.ok(labels.includes('ABORT'));
    const approvalLabels = parseStateDiagram(toMermaid(machineGraph(approval))).transitions.map(
      (t) => t.label,
    );
    assert.ok(approvalLabels.includes('after deadline'));
    assert.ok(
      parseStateDiagram(toMermaid(machineGraph(simple))).transitions.some(
        (t) => t.label === 'CLAIM [hasLoad]',
      ),
    );
  });

  it('marks active and visited states with classes', () => {
    const g = machineGraph(approval);
    const d = parseStateDiagram(
      toMermaid(g, {
        active: ['approval.awaitingDecision'],
        visits: { 'approval.requesting': 1, 'approval.awaitingDecision': 1 },
        edgeVisits: { 'approval.requesting:0': 1 },
      }),
    );
    assert.deepEqual([...(d.classes.get('approval_awaitingDecision') ?? [])], ['active']);
    assert.deepEqual([...(d.classes.get('approval_requesting') ?? [])], ['visited']);
    assert.equal(d.classes.get('approval_publishing'), undefined);
    assert.equal(d.states.get('approval_requesting')?.label, 'requesting ×1');
    assert.ok(d.transitions.some((t) => t.label === 'done(notify) ×1'));
  });

  it('refuses text outside the grammar (the checker can fail)', () => {
    const good = toMermaid(machineGraph(approval));
    assert.throws(() => parseStateDiagram(good.replace('stateDiagram-v2', 'stateDiagram')), /header/);
    assert.throws(() => parseStateDiagram(good.replace(/\n {2}\}\n/, '\n')), /unclosed/);
    assert.throws(
      () => parseStateDiagram(`${good}  approval_requesting --> nowhere : X\n`),
      /undeclared state nowhere/,
    );
    assert.throws(
      () => parseStateDiagram(`${good}  approval.requesting --> approval_published\n`),
      /not a stateDiagram-v2 statement/,
    );
  });
});

describe('toDot and toJson', () => {
  it('draws every state in a cluster or as a node, and every transition', () => {
    for (const def of Object.values(all)) {
      const g = machineGraph(def);
      const dot = toDot(g, marksFor(g));
      assert.equal((dot.match(/\{/g) ?? []).length, (dot.match(/\}/g) ?? []).length);
      for (const n of g.nodes)
        assert.ok(dot.includes(n.children.length ? `subgraph "cluster_${n.id}"` : `"${n.id}" [label=`), n.id);
      const arrows = (dot.match(/ -> /g) ?? []).length;
      const initials = g.nodes.filter((n) => n.initial).length;
      assert.equal(arrows, g.edges.reduce((n, e) => n + Math.max(1, e.targets.length), 0) + initials);
    }
  });

  it('gives the graph as JSON, with marks when given', () => {
    const g = machineGraph(ingest);
    assert.deepEqual(JSON.parse(toJson(g)), g);
    const marks = marksFor(g);
    assert.deepEqual(JSON.parse(toJson(g, marks)).marks, marks);
  });
});
