// GET /queues/:queue/series (docs/metrics.md, "Queues over time"): the minute tallies both stores
// write as jobs end, read back as throughput, failure rate and p50/p95 wait and run times.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createServer, defineJob } from '../../src/index.js';
import { quantile, seriesBucket, SERIES_BOUNDS, type SeriesPoint } from '../../src/store/queueSeries.js';
import { sleep } from '../support/redis.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const TOKEN = 'series-token';

describeOnEachStore('GET /queues/:queue/series', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('counts each ending once, with its failure rate and wait and run times in their buckets', async () => {
    h = world();
    const job = defineJob({
      name: 'timed',
      retry: { maxAttempts: 1 },
      work: async ({ input }: { input: string }) => {
        if (input === 'fail') throw new Error('bad');
        await sleep(120);
        return input;
      },
    });
    const client = h.client({ jobs: [job] });
    const ids = [
      await client.enqueue('timed', 'a', { queue: 'tq' }),
      await client.enqueue('timed', 'b', { queue: 'tq' }),
      // Waits 600 ms before it may run: its wait falls in (464, 1000].
      await client.enqueue('timed', 'c', { queue: 'tq', delayMs: 600 }),
      await client.enqueue('timed', 'fail', { queue: 'tq' }),
      await client.enqueue('timed', 'fail', { queue: 'tq' }),
    ];
    const never = await client.enqueue('timed', 'x', { queue: 'tq', delayMs: 60_000 });
    await client.cancel(never);
    await h.started({ jobs: [job], queues: ['tq'] });
    for (const id of ids) await client.waitForResult(id, { timeoutMs: 5000 });

    const app = createServer({ store: h.store, tokens: [TOKEN], logger: pino({ level: 'silent' }) });
    try {
      const get = async (window: string) => {
        const res = await app.inject({
          url: `/queues/tq/series?window=${window}`,
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        return { status: res.statusCode, json: res.json() };
      };
      const r = await get('15m');
      assert.equal(r.status, 200, JSON.stringify(r.json));
      const points = r.json.points as SeriesPoint[];
      assert.equal(points.length, 15);
      assert.equal(r.json.stepMs, 60_000);
      const sum = (k: 'done' | 'failed' | 'cancelled') => points.reduce((n, p) => n + p[k], 0);
      assert.deepEqual([sum('done'), sum('failed'), sum('cancelled')], [3, 2, 1]);
      const ran = points.filter((p) => p.run !== null);
      assert.equal(
        ran.reduce((n, p) => n + p.run!.count, 0),
        5,
        'a wait and a run per claimed job',
      );
      // The three done jobs ran 120 ms or more (bucket (100, 215], or the next one, (215, 464], on
      // a loaded machine: its claim-to-end time read 464 at load 16); the failures ran under
      // 100 ms. The delayed job's 600 ms wait is in (464, 1000]: a run read from the wait
      // histogram would fail here.
      for (const p of ran) assert.ok(p.run!.p95 <= 465, `run p95 ${p.run!.p95}`);
      assert.ok(ran.some((p) => p.run!.p95 > 100));
      assert.ok(
        ran.some((p) => p.wait!.p95 > 464 && p.wait!.p95 <= 1000),
        'the delayed job waited 600 ms: bucket (464, 1000]',
      );
      const all = ran.find((p) => p.done + p.failed === 5);
      if (all) assert.equal(all.failureRate, 0.4);
      assert.equal(points.at(-1)!.at, Math.floor(r.json.now / 60_000) * 60_000);

      const day = await get('24h');
      assert.equal(day.json.points.length, 96);
      assert.equal(day.json.stepMs, 15 * 60_000);
      assert.equal(
        (day.json.points as SeriesPoint[]).reduce((n, p) => n + p.done, 0),
        3,
      );
      assert.equal((await get('1h')).json.points.length, 60);
      assert.equal((await get('2h')).status, 400);
      const none = await app.inject({
        url: '/queues/nothing/series',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(none.statusCode, 200);
      assert.ok(none.json().points.every((p: SeriesPoint) => p.done === 0 && p.run === null));
    } finally {
      await app.close();
    }
  });
});

describe('series quantiles', () => {
  it('lands in the bucket of the true quantile: never off by more than its width', () => {
    assert.equal(seriesBucket(0), 0);
    assert.equal(seriesBucket(1), 0);
    assert.equal(seriesBucket(2), 1);
    assert.equal(seriesBucket(10), 3, 'a bound is in its own bucket');
    assert.equal(seriesBucket(11), 4);
    assert.equal(seriesBucket(100), 6);
    assert.equal(seriesBucket(5_000_000), SERIES_BOUNDS.length);
    for (const values of [
      [1, 2, 3, 4, 200],
      Array.from({ length: 100 }, (_, i) => i * 37),
      Array.from({ length: 40 }, (_, i) => 1000 + i * i * 50),
    ]) {
      const counts = Array.from({ length: SERIES_BOUNDS.length + 1 }, () => 0);
      for (const v of values) counts[seriesBucket(v)]!++;
      const sorted = [...values].sort((a, b) => a - b);
      for (const q of [0.5, 0.95]) {
        const truth = sorted[Math.ceil(q * sorted.length) - 1]!;
        const est = quantile(counts, values.length, q);
        const b = seriesBucket(truth);
        assert.equal(seriesBucket(est), b, `q${q} of ${values.length}: ${est} against ${truth}`);
        assert.ok(est <= truth * 2.16 && truth <= Math.max(1, est * 2.16));
      }
    }
  });
});
