// Traces with @opentelemetry/api and a real SDK provider (sdk-trace-base's BasicTracerProvider,
// registered globally, exporting to memory): an enqueue is a `publish <queue>` PRODUCER span,
// its context travels in the job, each attempt is a `process <queue>` CONSUMER span linked to
// it, and each pipeline state a child span of the attempt. Without a provider, nothing travels.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { defineJob, definePipeline, step } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

const threeSteps = setup({
  actors: { instant: step(async () => 'ok') },
}).createMachine({
  initial: 'fetch',
  states: {
    fetch: { invoke: { id: 'fetch', src: 'instant', onDone: 'resize' } },
    resize: { invoke: { id: 'resize', src: 'instant', onDone: 'store' } },
    store: { invoke: { id: 'store', src: 'instant', onDone: 'finished' } },
    finished: { type: 'final' },
  },
});

const echo = defineJob({ name: 'echo', work: async ({ input }) => input });

describe('tracing', () => {
  let redis: TestRedis;
  let h: Harness;
  let exporter: InMemorySpanExporter;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    await h.close();
    trace.disable();
  });

  function register(): void {
    exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    assert.ok(trace.setGlobalTracerProvider(provider), 'the provider was registered');
  }

  const spans = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);

  /** The job's stored per-job options (where the enqueue's trace context travels). */
  const storedOptions = async (id: string): Promise<string | null> => h.raw.hget(h.key(`job:${id}`), 'opt');

  it('links the attempt of a simple job to the publish span of its enqueue', async () => {
    register();
    h = new Harness(redis);
    await h.started({ jobs: [echo] });
    const client = h.client({ jobs: [echo] });
    const id = await client.enqueue('echo', 1);
    assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).status, 'done');
    await eventually(() => spans('process default').length === 1, 5000);

    const [publish] = spans('publish default');
    assert.ok(publish, 'a publish span');
    assert.equal(publish.kind, SpanKind.PRODUCER);
    assert.deepEqual(
      {
        system: publish.attributes['messaging.system'],
        destination: publish.attributes['messaging.destination.name'],
        id: publish.attributes['messaging.message.id'],
        op: publish.attributes['messaging.operation.name'],
      },
      { system: 'machinist', destination: 'default', id, op: 'publish' },
    );
    const ctx = publish.spanContext();
    assert.match(
      (await storedOptions(id)) ?? '',
      new RegExp(`"traceparent":"00-${ctx.traceId}-${ctx.spanId}-01"`),
    );

    const [process] = spans('process default');
    assert.ok(process);
    assert.equal(process.kind, SpanKind.CONSUMER);
    assert.equal(process.attributes['messaging.system'], 'machinist');
    assert.equal(process.attributes['messaging.destination.name'], 'default');
    assert.equal(process.attributes['messaging.message.id'], id);
    assert.equal(process.attributes['messaging.operation.name'], 'process');
    assert.equal(process.attributes['machinist.outcome'], 'done');
    assert.equal(process.links.length, 1);
    assert.equal(process.links[0]!.context.traceId, ctx.traceId);
    assert.equal(process.links[0]!.context.spanId, ctx.spanId);
    assert.equal(spans('step working').length, 0, 'a simple job has no step spans');
  });

  for (const compile of [true, false]) {
    it(`makes each state of a 3-step pipeline a child span of its attempt (${compile ? 'compiled' : 'XState runtime'})`, async () => {
      register();
      h = new Harness(redis);
      const jobs = [definePipeline({ name: 'three', machine: threeSteps, compile })];
      await h.started({ jobs });
      const client = h.client({ jobs });
      const id = await client.enqueue('three', null);
      assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).status, 'done');
      await eventually(() => spans('process default').length === 1, 5000);

      const [publish] = spans('publish default');
      const [process] = spans('process default');
      assert.ok(publish && process);
      assert.equal(process.links[0]?.context.spanId, publish.spanContext().spanId);
      assert.equal(process.attributes['machinist.machine'], 'three');
      const steps = exporter.getFinishedSpans().filter((s) => s.name.startsWith('step '));
      assert.deepEqual(
        steps.map((s) => s.name),
        ['step fetch', 'step resize', 'step store'],
      );
      for (const s of steps) {
        assert.equal(
          s.parentSpanContext?.spanId,
          process.spanContext().spanId,
          `${s.name} is a child of the attempt`,
        );
        assert.equal(s.spanContext().traceId, process.spanContext().traceId);
        assert.equal(s.attributes['machinist.state'], s.name.slice('step '.length));
      }
    });
  }

  it('marks an attempt that failed and is retried as an error, each attempt linked to the one publish', async () => {
    register();
    h = new Harness(redis);
    let runs = 0;
    const flaky = defineJob({
      name: 'flaky',
      work: async () => {
        if (++runs === 1) throw new Error('first time');
        return 'ok';
      },
      retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } },
    });
    await h.started({ jobs: [flaky] });
    const client = h.client({ jobs: [flaky] });
    const id = await client.enqueue('flaky', null);
    assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).status, 'done');
    await eventually(() => spans('process default').length === 2, 5000);
    const [publish] = spans('publish default');
    const attempts = spans('process default');
    assert.deepEqual(
      attempts.map((s) => [
        s.attributes['machinist.attempt'],
        s.attributes['machinist.outcome'],
        s.status.code,
      ]),
      [
        [1, 'retry', SpanStatusCode.ERROR],
        [2, 'done', SpanStatusCode.UNSET],
      ],
    );
    for (const a of attempts) assert.equal(a.links[0]?.context.spanId, publish!.spanContext().spanId);
  });

  it('stores no trace context and starts no span when no provider is registered', async () => {
    h = new Harness(redis);
    await h.started({ jobs: [echo] });
    const client = h.client({ jobs: [echo] });
    const id = await client.enqueue('echo', 1);
    assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).status, 'done');
    assert.ok(!((await storedOptions(id)) ?? '').includes('traceparent'));
    // A provider registered afterwards sees nothing of that job.
    register();
    assert.equal(exporter.getFinishedSpans().length, 0);
  });
});
