import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { machineGraph, nextEvents } from '../../src/chart/index.js';
import type { GraphEdge, MachineGraph } from '../../src/chart/index.js';
import { jobMachine } from '../../src/index.js';
import { approval, ingest, review, simple, splitMerge } from './fixtures/machines.js';

const node = (g: MachineGraph, id: string) => {
  const n = g.nodes.find((x) => x.id === id);
  assert.ok(n, `no state ${id} in ${g.nodes.map((x) => x.id).join(', ')}`);
  return n;
};
const edge = (g: MachineGraph, source: string, event: string): GraphEdge[] =>
  g.edges.filter((e) => e.source === source && e.event === event);

describe('machineGraph', () => {
  it('draws the approval pipeline: an invoked step, an `after` with a named delay, three finals', () => {
    const g = machineGraph(approval);
    assert.equal(g.name, 'approval');
    assert.equal(g.version, 1);
    assert.equal(g.kind, 'pipeline');
    assert.equal(g.root, 'approval');
    assert.equal(node(g, 'approval').initial, 'approval.requesting');
    assert.deepEqual(node(g, 'approval.requesting').invokes, [
      { id: 'notify', src: 'notifyReviewer', kind: 'step' },
    ]);
    assert.deepEqual(
      g.nodes.filter((n) => n.kind === 'final').map((n) => n.id),
      ['approval.published', 'approval.rejected', 'approval.expired'],
    );
    const deadline = g.edges.find((e) => e.kind === 'after');
    assert.deepEqual(
      { source: deadline?.source, targets: deadline?.targets, delay: deadline?.delay },
      { source: 'approval.awaitingDecision', targets: ['approval.expired'], delay: 'deadline' },
    );
    assert.deepEqual(edge(g, 'approval.awaitingDecision', 'APPROVE')[0]?.targets, ['approval.publishing']);
    const done = edge(g, 'approval.requesting', 'xstate.done.actor.notify')[0];
    assert.equal(done?.kind, 'done');
    assert.equal(done?.actor, 'notify');
  });

  it('draws ingest as three steps in a row ending in a final state', () => {
    const g = machineGraph(ingest);
    assert.deepEqual(
      g.nodes.map((n) => [n.id, n.kind, n.invokes.map((i) => i.kind).join()]),
      [
        ['ingest', 'compound', ''],
        ['ingest.fetching', 'atomic', 'step'],
        ['ingest.parsing', 'atomic', 'step'],
        ['ingest.indexing', 'atomic', 'step'],
        ['ingest.indexed', 'final', ''],
      ],
    );
    assert.deepEqual(
      g.edges.map((e) => `${e.source}->${e.targets.join()}`),
      [
        'ingest.fetching->ingest.parsing',
        'ingest.parsing->ingest.indexing',
        'ingest.indexing->ingest.indexed',
      ],
    );
  });

  it('shows a fanOut on its state and an eventless (always) transition', () => {
    const g = machineGraph(splitMerge);
    assert.deepEqual(node(g, 'splitMerge.counting').invokes, [
      { id: 'chunks', src: 'fanOut', kind: 'fanOut' },
    ]);
    const always = g.edges.filter((e) => e.kind === 'always');
    assert.deepEqual(
      always.map((e) => [e.source, e.targets, e.event]),
      [['splitMerge.merging', ['splitMerge.merged'], '']],
    );
    assert.deepEqual(edge(g, 'splitMerge.counting', 'xstate.error.actor.chunks')[0]?.targets, [
      'splitMerge.failed',
    ]);
  });

  it("draws a simple job as the shared lifecycle, with its guards and the root's CANCEL", () => {
    const g = machineGraph(simple);
    assert.equal(g.kind, 'job');
    assert.equal(g.name, 'simple');
    assert.deepEqual(
      g.nodes.map((n) => n.id),
      machineGraph(jobMachine).nodes.map((n) => n.id),
    );
    assert.equal(node(g, 'job').initial, 'job.queued');
    assert.deepEqual(
      edge(g, 'job.queued', 'CLAIM').map((e) => [e.guard, e.targets[0]]),
      [
        ['hasLoad', 'job.loading'],
        [undefined, 'job.working'],
      ],
    );
    assert.deepEqual(
      edge(g, 'job.working', 'FAIL').map((e) => e.guard),
      ['canRetry', undefined],
    );
    assert.deepEqual(edge(g, 'job', 'CANCEL')[0]?.targets, ['job.cancelled']);
    assert.deepEqual(
      g.nodes.filter((n) => n.kind === 'final').map((n) => n.key),
      ['done', 'failed', 'cancelled'],
    );
  });

  it('keeps nesting, parallel regions, numeric delays, combined guards and custom ids', () => {
    const g = machineGraph(review);
    assert.equal(node(g, 'review.approval').kind, 'parallel');
    assert.equal(node(g, 'review.approval').initial, null);
    assert.deepEqual(node(g, 'review.approval').children, ['review.approval.legal', 'review.approval.tech']);
    assert.equal(node(g, 'review.approval.legal').kind, 'compound');
    assert.equal(node(g, 'review.approval.legal').parent, 'review.approval');
    assert.equal(node(g, 'review.approval.legal').initial, 'review.approval.legal.reading');
    // A custom id replaces the path as XState's id; the key and parent still place it.
    assert.equal(node(g, 'techCheck').key, 'checking');
    assert.equal(node(g, 'techCheck').parent, 'review.approval.tech');
    assert.deepEqual(node(g, 'techCheck').invokes, [{ id: 'check', src: 'check', kind: 'step' }]);
    const after = g.edges.find((e) => e.source === 'techCheck' && e.kind === 'after');
    assert.equal(after?.delay, 5000);
    assert.deepEqual(after?.targets, ['review.approval.tech.stale']);
    assert.equal(edge(g, 'review.approval.legal.reading', 'OK')[0]?.guard, 'and(signed, not(vetoed))');
    assert.equal(edge(g, 'review.approval.tech.stale', 'RETRY')[0]?.reenter, true);
    assert.deepEqual(edge(g, 'review', 'ABORT')[0]?.targets, ['review.aborted']);
    const onDone = g.edges.find((e) => e.kind === 'state-done');
    assert.deepEqual([onDone?.source, onDone?.targets], ['review.approval', ['review.published']]);
  });

  it('is plain JSON: what the registry publishes reads back equal', () => {
    for (const def of [approval, ingest, splitMerge, simple, review]) {
      const g = machineGraph(def);
      assert.deepEqual(JSON.parse(JSON.stringify(g)), g);
    }
  });
});

describe('nextEvents', () => {
  it("lists the events a state accepts, from the definition or from the graph alone, without XState's own", () => {
    assert.deepEqual(nextEvents(approval, 'awaitingDecision'), ['APPROVE', 'REJECT']);
    assert.deepEqual(nextEvents(machineGraph(approval), 'awaitingDecision'), ['APPROVE', 'REJECT']);
    // requesting only waits for its step (xstate.done.actor.notify): nothing to send.
    assert.deepEqual(nextEvents(approval, 'requesting'), []);
    assert.deepEqual(nextEvents(approval, { value: 'published', status: 'done' }), []);
  });

  it('takes the active states of every parallel region and their ancestors', () => {
    const value = { approval: { legal: 'reading', tech: 'stale' } };
    assert.deepEqual(nextEvents(review, value).sort(), ['ABORT', 'OK', 'RETRY']);
    assert.deepEqual(nextEvents(machineGraph(review), value).sort(), ['ABORT', 'OK', 'RETRY']);
  });

  it("gives a simple job's lifecycle events", () => {
    assert.deepEqual(nextEvents(simple, 'waiting'), ['WAKE', 'CANCEL']);
  });
});
