// The machine page's heat map from real jobs (a real Supervisor on a real redis-server, read
// through the dashboard's route): how many jobs sit in each state now, and how long they dwelt.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { approvalPipeline } from '../../machines/approval.js';
import { createServer } from '../../src/http/createServer.js';
import type { Client } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';

const TOKEN = 'heat-test-token';
const NOTIFY_MS = 1000;

interface Heat {
  states: Record<string, { count: number; p50: number | null; p95: number | null }>;
  sampled: number;
}

describe('machine heat map', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let client: Client;
  // Notifying takes a second: every job dwells at least that long in `requesting`.
  const approval = approvalPipeline({
    notifyReviewer: () => sleep(NOTIFY_MS).then(() => undefined),
    publish: async (d) => `https://docs/${d}`,
  });

  before(async () => {
    redis = await startRedis();
    h = new Harness(redis);
    await h.started({ jobs: [approval], concurrency: 8 });
    client = h.client({ jobs: [approval] });
    app = createServer({ store: h.store, jobs: [approval], tokens: [TOKEN], logger: false });
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await h?.close();
    await redis?.stop();
  });

  async function heat(): Promise<Heat> {
    const res = await app.inject({
      url: '/dashboard/api/machines/approval/1/heat',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Heat>();
  }

  it('counts the jobs in each state now and gives dwell times from their logs', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await client.enqueue('approval', { documentId: `d${i}` }));
    await eventually(async () => {
      const recs = await Promise.all(ids.map((id) => client.get(id)));
      return recs.every((r) => r?.status === 'waiting');
    }, 30_000);
    await client.send(ids[0]!, { type: 'APPROVE', by: 'ana' });
    await client.waitForResult(ids[0]!, { timeoutMs: 15_000 });
    await client.cancel(ids[1]!);
    await eventually(async () => (await client.get(ids[1]!))?.status === 'cancelled', 15_000);

    const { states, sampled } = await heat();
    assert.equal(sampled >= 4, true, `sampled ${sampled}`);
    // Now: three wait for a decision; the approved one has finished, the cancelled one too.
    assert.equal(states['approval.awaitingDecision']?.count, 3);
    assert.equal(states['approval.requesting']?.count ?? 0, 0);
    assert.equal(states['approval.published']?.count ?? 0, 0, 'a finished job sits nowhere now');
    // Dwell: every job spent at least the notify's second in `requesting`.
    const req = states['approval.requesting']!;
    assert.ok(req.p50 !== null && req.p50 >= NOTIFY_MS / 2, `requesting p50 ${req.p50}`);
    assert.ok(req.p95! >= req.p50, 'p95 >= p50');
    assert.equal(typeof states['approval.awaitingDecision']?.p50, 'number');
    // A final state has no stay (the job ends as it enters it): no dwell time, not "0 ms".
    assert.equal(states['approval.published']?.p50 ?? null, null, 'no dwell for a final state');
  });
});
