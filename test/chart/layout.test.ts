import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { layoutGraph, machineGraph } from '../../src/chart/index.js';
import type { ChartLayout, LayoutNode } from '../../src/chart/index.js';
import { textWidth } from '../../src/chart/textWidth.js';
import { approval, ingest, review, simple, splitMerge } from './fixtures/machines.js';

const all = { approval, ingest, splitMerge, simple, review };

const overlap = (a: LayoutNode, b: LayoutNode) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (c: LayoutNode, p: LayoutNode) =>
  c.x >= p.x && c.y >= p.y && c.x + c.width <= p.x + p.width && c.y + c.height <= p.y + p.height;

function checkBoxes(name: string, layout: ChartLayout): void {
  const graph = machineGraph(all[name as keyof typeof all]);
  const byId = new Map(layout.nodes.map((n) => [n.id, n]));
  assert.deepEqual([...byId.keys()].sort(), graph.nodes.map((n) => n.id).sort(), `${name}: a box per state`);
  for (const g of graph.nodes) {
    const box = byId.get(g.id)!;
    assert.ok(box.width > 0 && box.height > 0, `${name}: ${g.id} has a size`);
    assert.ok(
      box.x + box.width <= layout.width && box.y + box.height <= layout.height,
      `${name}: ${g.id} in the chart`,
    );
    if (g.parent) assert.ok(inside(box, byId.get(g.parent)!), `${name}: ${g.id} inside ${g.parent}`);
    const siblings = g.children.map((c) => byId.get(c)!);
    for (let i = 0; i < siblings.length; i++)
      for (let j = i + 1; j < siblings.length; j++)
        assert.ok(
          !overlap(siblings[i]!, siblings[j]!),
          `${name}: ${siblings[i]!.id} overlaps ${siblings[j]!.id}`,
        );
  }
}

describe('layoutGraph', () => {
  for (const name of Object.keys(all)) {
    it(`lays ${name} out with sibling boxes apart and every box inside its parent`, async () => {
      const layout = await layoutGraph(machineGraph(all[name as keyof typeof all]));
      checkBoxes(name, layout);
      const graph = machineGraph(all[name as keyof typeof all]);
      const drawn = graph.edges.reduce((n, e) => n + Math.max(1, e.targets.length), 0);
      assert.equal(layout.edges.length, drawn, 'an edge per transition target');
      for (const e of layout.edges) {
        assert.ok(e.points.length >= 2, `edge ${e.id} has a path`);
        for (const p of e.points)
          assert.ok(
            p.x >= 0 && p.y >= 0 && p.x <= layout.width && p.y <= layout.height,
            `edge ${e.id} inside the chart`,
          );
      }
      assert.equal(
        layout.initials.length,
        graph.nodes.filter((n) => n.initial).length,
        'an initial dot per compound state',
      );
    });
  }

  for (const name of Object.keys(all)) {
    it(`gives ${name}'s edge labels boxes as wide as their text with a count, none overlapping another label or a state`, async () => {
      const layout = await layoutGraph(machineGraph(all[name as keyof typeof all]));
      const boxes = layout.edges.flatMap((e) =>
        e.labelBox ? [{ id: e.id, label: e.label, ...e.labelBox }] : [],
      );
      assert.equal(boxes.length, layout.edges.length, 'every edge has a placed label');
      for (const b of boxes)
        assert.ok(
          b.width >= textWidth(`${b.label} ×99`, 11),
          `${b.id}: "${b.label} ×99" needs ${textWidth(`${b.label} ×99`, 11)} px, box ${b.width}`,
        );
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++)
          assert.ok(
            !overlap(boxes[i]! as never, boxes[j]! as never),
            `labels ${boxes[i]!.id} and ${boxes[j]!.id} overlap`,
          );
      // A label may sit inside a compound state's box, never on a leaf state.
      for (const b of boxes)
        for (const n of layout.nodes.filter((n) => n.kind !== 'compound' && n.kind !== 'parallel'))
          assert.ok(!overlap(b as never, n), `label ${b.id} covers state ${n.id}`);
    });
  }

  it('puts the end of each edge on the border of its target box (absolute coordinates)', async () => {
    const layout = await layoutGraph(machineGraph(review));
    const byId = new Map(layout.nodes.map((n) => [n.id, n]));
    for (const e of layout.edges) {
      const end = e.points[e.points.length - 1]!;
      const t = byId.get(e.target)!;
      const onBorder =
        end.x >= t.x - 1 && end.x <= t.x + t.width + 1 && end.y >= t.y - 1 && end.y <= t.y + t.height + 1;
      assert.ok(onBorder, `${e.id} ends at ${JSON.stringify(end)}, not on ${JSON.stringify(t)}`);
    }
  });

  it('is computed once per machine name@version', async () => {
    const g = machineGraph(approval);
    const first = layoutGraph(g);
    assert.equal(
      layoutGraph(JSON.parse(JSON.stringify(g))),
      first,
      'an equal graph of the same version is cached',
    );
    const other = layoutGraph({ ...g, version: 99 });
    assert.notEqual(other, first);
    assert.equal((await other).version, 99);
  });
});
