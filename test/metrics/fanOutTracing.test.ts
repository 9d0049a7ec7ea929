// Traces of a fan-out (a real SDK provider exporting to memory, as tracing.test.ts): each child's
// `publish` span carries the child's real job id (the id its `process` span carries) and hangs
// under the parent job's active span (the `step` of the state that fans out), in the parent's
// trace, so a trace shows the parent and the children it started.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { defineJob, definePipeline, fanOut } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

const double = defineJob({ name: 'double', work: async ({ input }: { input: number }) => input * 2 });

const fanMachine = setup({ actors: { fanOut } }).createMachine({
  initial: 'fan',
  context: { out: [] as unknown[] },
  states: {
    fan: {
      invoke: {
        id: 'kids',
        src: 'fanOut',
        input: () => ({ jobs: [1, 2, 3].map((n) => ({ machine: 'double', input: n })) }),
        onDone: { target: 'end', actions: ({ context, event }) => void (context.out = event.output) },
      },
    },
    end: { type: 'final' },
  },
  output: ({ context }) => context.out,
});

describe('tracing a fan-out', () => {
  let redis: TestRedis;
  let h: Harness;
  let exporter: InMemorySpanExporter;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    await h.close();
    trace.disable();
  });

  const id = (s: ReadableSpan) => s.attributes['messaging.message.id'] as string;

  it('gives each child’s publish span the child’s id, under the parent’s step span, in its trace', async () => {
    exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    assert.ok(trace.setGlobalTracerProvider(provider));
    h = new Harness(redis);
    const jobs = [double, definePipeline({ name: 'parent', machine: fanMachine })];
    await h.started({ jobs });
    const client = h.client({ jobs });
    const parentId = await client.enqueue('parent', null);
    const result = await client.waitForResult(parentId, { timeoutMs: 15_000 });
    assert.equal(result.status, 'done');
    assert.deepEqual(result.output, [2, 4, 6]);
    const all = () => exporter.getFinishedSpans();
    await eventually(() => all().filter((s) => s.name === 'process default').length >= 5, 5000);

    const publishes = all().filter((s) => s.name === 'publish default');
    const processes = all().filter((s) => s.name === 'process default');
    const childProcesses = processes.filter((s) => id(s) !== parentId);
    const childIds = new Set(childProcesses.map(id));
    assert.equal(childIds.size, 3, 'three children ran');
    const childPublishes = publishes.filter((s) => id(s) !== parentId);
    assert.deepEqual(
      new Set(childPublishes.map(id)),
      childIds,
      'each child’s publish span carries the id its process span carries',
    );
    // The parent's attempt that fanned out, and its step in the state `fan`.
    const fanSteps = all().filter((s) => s.name === 'step fan');
    assert.ok(fanSteps.length >= 1);
    for (const p of childPublishes) {
      const parentSpan = fanSteps.find((s) => s.spanContext().spanId === p.parentSpanContext?.spanId);
      assert.ok(parentSpan, `child ${id(p)}'s publish span hangs under the parent's 'step fan' span`);
      assert.equal(p.spanContext().traceId, parentSpan.spanContext().traceId, 'in the parent’s trace');
    }
    // Each child's attempt links to its own publish span.
    for (const c of childProcesses) {
      const pub = childPublishes.find((p) => id(p) === id(c))!;
      assert.equal(c.links[0]?.context.spanId, pub.spanContext().spanId);
    }
  });
});
