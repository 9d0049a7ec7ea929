// POST /jobs?wait= of a minimal job (its record deleted as it ends done) on both stores: the
// submit watches the job in the step that makes it, so a job that ends before the enqueue even
// answers still comes back as 200 with its result, never a 202 with nothing to fetch. The race
// is made certain by a store whose enqueue answers only once its jobs are gone (endsBeforeReply).

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createServer } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { endsBeforeReply } from '../support/endsBeforeReply.js';
import { ping, releaseHeld } from '../fixtures/minimalPing.js';
import { eventually } from '../support/redis.js';

const jobs = [ping];

interface Server {
  post(body: unknown, wait: string, headers?: Record<string, string>): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

async function serve(store: Store): Promise<Server> {
  const app = createServer({ store, jobs, auth: false, logger: pino({ level: 'silent' }) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    async post(body, wait, headers = {}) {
      const res = await fetch(`${url}/jobs?wait=${wait}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: await res.json() };
    },
    close: () => app.close(),
  };
}

describeOnEachStore('POST /jobs?wait= of a minimal job', (world) => {
  let h: AnyStoreWorld;
  let server: Server | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await h.close();
  });

  it('answers 200 with the result of a job that ended before its enqueue answered', async () => {
    h = world();
    await h.started({ jobs });
    server = await serve(endsBeforeReply(h.store));
    const res = await server.post({ machine: 'ping', input: { n: 5 } }, '10s');
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.status, 'done');
    assert.deepEqual(res.json.output, { pong: 5 });
  });

  it('answers 200 to each of many concurrent submits of minimal no-op jobs', async () => {
    h = world();
    await h.started({ jobs, concurrency: 8 });
    server = await serve(h.store);
    for (let round = 0; round < 3; round++) {
      const all = await Promise.all(
        Array.from({ length: 30 }, (_, n) => server!.post({ machine: 'ping', input: { n } }, '10s')),
      );
      assert.deepEqual(
        all.map((r) => [r.status, r.json.output]),
        Array.from({ length: 30 }, (_, n) => [200, { pong: n }]),
      );
    }
  });

  it('answers 200 on a partitioned queue, the job watched in the partition that makes it', async () => {
    h = world();
    await h.client().configureQueue('wide', { partitions: 3 });
    await h.started({ jobs, queue: 'wide' });
    server = await serve(endsBeforeReply(h.store));
    const all = await Promise.all(
      [1, 2, 3].map((n) => server!.post({ machine: 'ping', input: { n }, queue: 'wide' }, '10s')),
    );
    assert.deepEqual(
      all.map((r) => [r.status, r.json.output]),
      [1, 2, 3].map((n) => [200, { pong: n }]),
    );
    assert.ok(all.every((r) => (r.json.queue as string).startsWith('wide#')));
  });

  it('answers 200 with the result of the running job an Idempotency-Key keeps', async () => {
    h = world();
    await h.started({ jobs });
    const plain = await serve(h.store);
    try {
      const first = await plain.post({ machine: 'ping', input: { n: 1, hold: true } }, '1ms', {
        'idempotency-key': 'k1',
      });
      assert.equal(first.status, 202);
      await eventually(
        async () => (await h.store.getJob(first.json.job_id, 'default'))?.status === 'working',
      );
      server = await serve(endsBeforeReply(h.store, releaseHeld));
      const res = await server.post({ machine: 'ping', input: { n: 2 } }, '10s', { 'idempotency-key': 'k1' });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.equal(res.json.id, first.json.job_id);
      assert.deepEqual(res.json.output, { pong: 1 });
    } finally {
      await plain.close();
    }
  });
});
