// A job stream as a standard EventSource sees it: it stops once the job has ended (a resume of a
// finished job whose end the client has seen answers 204, which tells EventSource to stop), each
// message has its own id, and a resume from any message's id delivers exactly the messages after
// it. The client is test/support/eventSource.ts, the standard's processing model over fetch.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { defineJob, Supervisor } from '../../src/index.js';
import { FAST } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { startApi, TOKEN, type Api } from '../support/api.js';
import { CLOSED, TestEventSource, type EventSourceMessage } from '../support/eventSource.js';

const echo = defineJob({
  name: 'echo',
  work: async ({ input }: { input: { sleepMs?: number } | null }) => {
    if (input?.sleepMs) await new Promise((r) => setTimeout(r, input.sleepMs));
    return input;
  },
});

const auth = { authorization: `Bearer ${TOKEN}` };

describe('HTTP API job streams with a standard EventSource', () => {
  let redis: TestRedis;
  let api: Api;
  let supervisor: Supervisor;
  const sources: TestEventSource[] = [];
  before(async () => {
    redis = await startRedis();
    api = await startApi(redis, { jobs: [echo] });
    supervisor = new Supervisor({
      store: api.store,
      jobs: [echo],
      logger: pino({ level: 'silent' }),
      ...FAST,
    });
    await supervisor.start();
  });
  after(async () => {
    await supervisor.stop({ graceMs: 0 });
    await api.close();
    await redis.stop();
  });
  afterEach(() => {
    for (const s of sources.splice(0)) s.close();
  });

  const enqueue = async (input: unknown = null): Promise<string> =>
    (await api.call('POST', '/jobs', { body: { machine: 'echo', input } })).json.job_id;

  /** An EventSource on the job's stream, reconnecting after 100 ms unless the server says otherwise. */
  function follow(id: string, lastEventId?: string): TestEventSource {
    const headers: Record<string, string> = { ...auth };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const s = new TestEventSource(`${api.url}/jobs/${id}/stream`, headers);
    sources.push(s);
    return s;
  }

  /** Waits for the source to close; on a timeout, says what it saw. */
  async function closedWithin(s: TestEventSource, ms: number): Promise<void> {
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms).unref());
    const result = await Promise.race([s.closed(), timeout]);
    assert.notEqual(
      result,
      'timeout',
      `still open after ${ms} ms: connections ${JSON.stringify(s.connections)}; ` +
        `final records ${s.messages.filter((m) => m.type === 'job').length}`,
    );
  }

  const shape = (m: EventSourceMessage) => {
    const data = JSON.parse(m.data) as { status?: string; type?: string };
    return `${m.lastEventId} ${m.type} ${m.type === 'job' ? data.status : `${data.type}/${data.status}`}`;
  };

  it('stops once the job has ended: one resume, answered 204, and the final record once', async () => {
    const id = await enqueue({ sleepMs: 200 });
    const source = follow(id);
    // The stream ends after the final record; EventSource reconnects after `retry:` (2 s) with the
    // last id, and the server's 204 tells it to stop. On main it reconnected every 2 s for ever.
    await closedWithin(source, 8000);
    assert.equal(source.readyState, CLOSED);
    assert.deepEqual(
      source.connections.map((c) => c.status),
      [200, 204],
    );
    const records = source.messages.filter((m) => m.type === 'job').map((m) => JSON.parse(m.data).status);
    assert.deepEqual(records.slice(1), ['done'], 'the final record, once');
  });

  it('gives each message its own id, and a resume from any of them delivers exactly the messages after it', async () => {
    const id = await enqueue({ sleepMs: 300 });
    const whole = follow(id);
    const ended = (m: EventSourceMessage) => m.type === 'job' && JSON.parse(m.data).status === 'done';
    await eventually(() => whole.messages.some(ended), 8000);
    whole.close();
    const all = whole.messages.slice(0, whole.messages.findIndex(ended) + 1);
    assert.ok(all.length >= 3, `record, events, final record: ${all.map(shape).join(' | ')}`);
    const ids = all.map((m) => m.lastEventId);
    assert.equal(new Set(ids).size, ids.length, `one id per message: ${ids.join(', ')}`);
    for (let i = 0; i < all.length; i++) {
      const resumed = follow(id, all[i]!.lastEventId);
      await closedWithin(resumed, 8000);
      assert.deepEqual(
        resumed.messages.map(shape),
        all.slice(i + 1).map(shape),
        `resumed from message ${i} (${all[i]!.lastEventId})`,
      );
      // Nothing after the last message: the resume is told to stop at once.
      if (i === all.length - 1)
        assert.deepEqual(
          resumed.connections.map((c) => c.status),
          [204],
        );
    }
  });

  it('a job that had finished before the stream opened: its record, then 204 on the resume', async () => {
    const id = (await api.call('POST', '/jobs?wait=10s', { body: { machine: 'echo' } })).json.id as string;
    await eventually(async () => (await api.call('GET', `/jobs/${id}`)).json.status === 'done');
    const source = follow(id);
    await closedWithin(source, 8000);
    assert.deepEqual(
      source.messages.map((m) => [m.type, JSON.parse(m.data).status]),
      [['job', 'done']],
    );
    assert.deepEqual(
      source.connections.map((c) => c.status),
      [200, 204],
    );
  });
});
