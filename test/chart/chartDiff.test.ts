import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chartDiff } from '../../src/chart/chartDiff.js';
import { machineGraph } from '../../src/chart/index.js';
import { orderV1, orderV2 } from './fixtures/orderVersions.js';

describe('chartDiff', () => {
  it('names the states added, removed and renamed (same transitions in and out) between two versions', () => {
    const d = chartDiff(machineGraph(orderV1), machineGraph(orderV2));
    assert.deepEqual(d.added, ['order.onHold']);
    assert.deepEqual(d.removed, ['order.giftWrap']);
    assert.deepEqual(d.renamed, [{ from: 'order.packing', to: 'order.picking' }]);
    assert.deepEqual(d.kept.sort(), ['order', 'order.cancelled', 'order.received', 'order.shipped']);
    assert.deepEqual([d.machine, d.from, d.to], ['order', 1, 2]);
  });

  it('pairs nothing when two added states both match a removed one', () => {
    const v1 = machineGraph(orderV1);
    const v2 = machineGraph(orderV2);
    // A copy of picking under another name: the rename is no longer clear.
    const twin = {
      ...v2.nodes.find((n) => n.id === 'order.picking')!,
      id: 'order.picking2',
      key: 'picking2',
    };
    const edges = v2.edges.flatMap((e) =>
      e.source === 'order.picking'
        ? [e, { ...e, id: `${e.id}b`, source: 'order.picking2' }]
        : e.targets.includes('order.picking')
          ? [e, { ...e, id: `${e.id}b`, targets: ['order.picking2'] }]
          : [e],
    );
    const d = chartDiff(v1, { ...v2, nodes: [...v2.nodes, twin], edges });
    assert.deepEqual(d.renamed, []);
    assert.ok(d.removed.includes('order.packing') && d.added.includes('order.picking'));
  });

  it('finds nothing changed between a version and itself', () => {
    const d = chartDiff(machineGraph(orderV1), machineGraph(orderV1));
    assert.deepEqual([d.added, d.removed, d.renamed], [[], [], []]);
  });
});
