// The job page's scrubber shows the context as it was when the job entered each state: the
// audit log's `state` entries carry what changed in the context (a real Supervisor writes them
// to a real redis-server; the dashboard's view route reads them back through createServer).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { assign, setup } from 'xstate';
import { approvalPipeline } from '../../machines/approval.js';
import { createServer } from '../../src/http/createServer.js';
import { definePipeline, step, type AuditEntry, type Client } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';

const TOKEN = 'scrub-test-token';

// A chain of steps (run by the compiled runtime): one context key too large to keep in the log.
const BIG = 'x'.repeat(10_000);
const chain = definePipeline({
  name: 'chain',
  machine: setup({
    types: { context: {} as { n: number; big: string | null; note: string } },
    actors: {
      one: step(async () => BIG),
      two: step(async () => 'second'),
    },
  }).createMachine({
    id: 'chain',
    initial: 'first',
    context: { n: 0, big: null, note: 'start' },
    states: {
      first: {
        invoke: {
          id: 'one',
          src: 'one',
          onDone: { target: 'second', actions: assign({ n: 1, big: ({ event }) => event.output }) },
        },
      },
      second: {
        invoke: {
          id: 'two',
          src: 'two',
          onDone: { target: 'finished', actions: assign({ n: 2, note: ({ event }) => event.output }) },
        },
      },
      finished: { type: 'final' },
    },
  }),
});

interface View {
  log: AuditEntry[];
  contextAt?: unknown;
}

describe('scrubbing the audit log shows the context of that moment', () => {
  let redis: TestRedis;
  let h: Harness;
  let app: FastifyInstance;
  let client: Client;
  const approval = approvalPipeline({
    notifyReviewer: async () => {},
    publish: async (d) => `https://docs/${d}`,
  });
  const jobs = [approval, chain];

  before(async () => {
    redis = await startRedis();
    h = new Harness(redis);
    await h.started({ jobs });
    client = h.client({ jobs });
    app = createServer({ store: h.store, jobs, tokens: [TOKEN], logger: false });
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await h?.close();
    await redis?.stop();
  });

  async function view(id: string, at?: number): Promise<View> {
    const res = await app.inject({
      url: `/dashboard/api/jobs/${id}/view${at === undefined ? '' : `?at=${at}`}`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<View>();
  }
  const stateEntry = (log: AuditEntry[], state: string) => {
    const i = log.findIndex((e) => e.type === 'state' && e.state === state);
    assert.ok(i >= 0, `a state entry for ${state}`);
    return i;
  };

  it('an approval: before the decision, after it, and at the end', async () => {
    const id = await client.enqueue('approval', { documentId: 'doc-1' });
    await eventually(async () => (await client.get(id))?.status === 'waiting', 15_000);
    await client.send(id, { type: 'APPROVE', by: 'ana' });
    await client.waitForResult(id, { timeoutMs: 15_000 });
    const { log } = await view(id);

    const waiting = await view(id, stateEntry(log, 'awaitingDecision'));
    assert.deepEqual(waiting.contextAt, {
      documentId: 'doc-1',
      deadlineMs: 86_400_000,
      outcome: 'pending',
      decidedBy: null,
      reason: null,
      url: null,
    });
    const publishing = await view(id, stateEntry(log, 'publishing'));
    assert.equal((publishing.contextAt as { decidedBy: unknown }).decidedBy, 'ana');
    assert.equal((publishing.contextAt as { url: unknown }).url, null, 'not yet published');
    const end = await view(id, log.length - 1);
    assert.equal((end.contextAt as { url: unknown }).url, 'https://docs/doc-1');
  });

  it('a step chain: each state its own context, a value too large to keep noted as such', async () => {
    const id = await client.enqueue('chain', null);
    await client.waitForResult(id, { timeoutMs: 15_000 });
    const { log } = await view(id);
    const first = await view(id, stateEntry(log, 'first'));
    assert.deepEqual(first.contextAt, { n: 0, big: null, note: 'start' });
    const second = (await view(id, stateEntry(log, 'second'))).contextAt as Record<string, unknown>;
    assert.equal(second.n, 1);
    assert.equal(second.note, 'start');
    assert.match(String(second.big), /not kept in the audit log/);
    // What the log costs: no entry holds the large value.
    for (const e of log)
      assert.ok(JSON.stringify(e).length < 2_000, `entry ${JSON.stringify(e).slice(0, 80)}`);
  });
});
