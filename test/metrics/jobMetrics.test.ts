// The job and state series, as a scraper reads them: a real Supervisor runs jobs against a real
// redis-server, and the text its MachinistMetrics exports is parsed by a Prometheus text parser.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { MachinistMetrics, defineJob, definePipeline, step } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { Scrape } from '../support/prometheus.js';

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

const ok = defineJob({ name: 'ok', load: async () => 1, work: async () => 'fine' });
const flaky = defineJob({
  name: 'flaky',
  work: async () => {
    throw new Error('always');
  },
  retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } },
});

async function scrape(metrics: MachinistMetrics): Promise<Scrape> {
  return new Scrape(await metrics.text());
}

/** Scrapes until `ready` holds: a count follows the write's answer in the worker, which may
 * come after the client saw the job end. */
async function scrapeUntil(metrics: MachinistMetrics, ready: (s: Scrape) => boolean): Promise<Scrape> {
  let last: Scrape | undefined;
  await eventually(async () => ready((last = await scrape(metrics))), 10_000);
  return last!;
}

describe('job metrics', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  for (const compile of [true, false]) {
    it(`counts done, retried and failed attempts, pipeline states and queue depth (${compile ? 'compiled' : 'XState runtime'})`, async () => {
      h = new Harness(redis);
      const pipeline = definePipeline({ name: 'three', machine: threeSteps, compile });
      const jobs = [ok, flaky, pipeline];
      const metrics = new MachinistMetrics({ store: h.store, depthCacheMs: 0 });
      await h.started({ jobs, observers: [metrics] });
      const client = h.client({ jobs });
      const ids = await Promise.all([
        client.enqueue('ok', null),
        client.enqueue('flaky', null),
        client.enqueue('three', null),
      ]);
      const results = await Promise.all(ids.map((id) => client.waitForResult(id, { timeoutMs: 15_000 })));
      assert.deepEqual(
        results.map((r) => r.status),
        ['done', 'failed', 'done'],
      );
      const s = await scrapeUntil(
        metrics,
        (s) =>
          s.value('machinist_jobs_total', { queue: 'default', machine: 'three', status: 'done' }) === 1 &&
          s.value('machinist_jobs_total', { queue: 'default', machine: 'flaky', status: 'failed' }) === 1,
      );
      const jobsTotal = (machine: string, status: string) =>
        s.value('machinist_jobs_total', { queue: 'default', machine, status });
      assert.equal(jobsTotal('ok', 'done'), 1);
      assert.equal(jobsTotal('flaky', 'retry'), 1, 'the first of two attempts was retried');
      assert.equal(jobsTotal('flaky', 'failed'), 1);
      assert.equal(
        s.count('machinist_job_duration_seconds', { queue: 'default', machine: 'flaky', status: 'retry' }),
        1,
      );
      assert.equal(
        s.count('machinist_job_duration_seconds', { queue: 'default', machine: 'three', status: 'done' }),
        1,
      );

      const transitions = (machine: string, from: string, to: string) =>
        s.value('machinist_state_transitions_total', { machine, from, to });
      assert.equal(transitions('three', 'fetch', 'resize'), 1);
      assert.equal(transitions('three', 'resize', 'store'), 1);
      assert.equal(transitions('three', 'store', 'finished'), 1);
      assert.equal(transitions('ok', 'loading', 'working'), 1);
      assert.equal(transitions('ok', 'working', 'done'), 1);
      assert.equal(transitions('flaky', 'working', 'failed'), 1, 'only the last attempt fails the job');
      for (const state of ['fetch', 'resize', 'store'])
        assert.equal(s.count('machinist_state_dwell_seconds', { machine: 'three', state }), 1, state);
      // Labelled by state, never by job: no label value is a job id.
      for (const name of ['machinist_state_dwell_seconds_count', 'machinist_state_transitions_total'])
        for (const sample of s.family(name).metrics)
          for (const v of Object.values(sample.labels ?? {}))
            assert.ok(!(ids as string[]).includes(v), `${name}: ${v}`);

      assert.equal(s.value('machinist_queue_depth', { queue: 'default', status: 'done' }), 2);
      assert.equal(s.value('machinist_queue_depth', { queue: 'default', status: 'failed' }), 1);
      assert.equal(s.value('machinist_queue_depth', { queue: 'default', status: 'queued' }), 0);
      assert.equal(s.value('machinist_lease_requeues_total'), 0);
      // The series the HTTP side adds are there (empty) in a worker's scrape as well.
      for (const name of [
        'machinist_webhook_deliveries_total',
        'machinist_http_requests_total',
        'machinist_http_request_duration_seconds',
      ])
        s.family(name);
    });
  }

  it('labels a machine no definition has as other, so stored names cannot add label values', async () => {
    h = new Harness(redis);
    const metrics = new MachinistMetrics({ store: h.store });
    await h.started({ jobs: [ok], observers: [metrics] });
    // A record no Client would write (a foreign producer's): a machine nobody registered.
    const names = ['unknown-a', 'unknown-b'];
    await h.store.enqueue(
      'default',
      names.map((machine, i) => ({
        id: `01JFOREIGN00000000000000${i}`,
        machine,
        version: 1,
        input: 'null',
        band: 2,
        delayMs: 0,
        maxAttempts: 1,
      })),
    );
    const s = await scrapeUntil(
      metrics,
      (s) => s.value('machinist_jobs_total', { queue: 'default', machine: 'other', status: 'broken' }) === 2,
    );
    const machines = s.labelValues('machinist_jobs_total', 'machine');
    for (const name of names) assert.ok(!machines.has(name), `${name} became a label value`);
    assert.deepEqual([...machines], ['other']);
  });

  it('counts lease requeues done by its reaper', async () => {
    h = new Harness(redis);
    const metrics = new MachinistMetrics();
    const client = h.client({ jobs: [ok] });
    await client.enqueue('ok', null);
    // A worker that claimed the job and died: its lease passes, the supervisor's reaper requeues it.
    assert.equal((await h.claimAs('dead', { leaseMs: 200 })).length, 1);
    await h.started({ jobs: [ok], observers: [metrics] });
    const s = await scrapeUntil(
      metrics,
      (s) =>
        s.value('machinist_lease_requeues_total') === 1 &&
        s.value('machinist_jobs_total', { queue: 'default', machine: 'ok', status: 'done' }) === 1,
    );
    assert.equal(s.value('machinist_lease_requeues_total'), 1);
  });
});
