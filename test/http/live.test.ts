// Server-sent events: a queue's lifecycle events and one job's, resumed with Last-Event-ID,
// kept open by heartbeat comments, and served by one blocking Redis read per queue however many
// clients follow it, released when they go.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { defineJob, Supervisor } from '../../src/index.js';
import { FAST } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { openSse, startApi, type Api, type SseReader } from '../support/api.js';

const echo = defineJob({
  name: 'echo',
  work: async ({ input }: { input: { sleepMs?: number } | null }) => {
    if (input?.sleepMs) await new Promise((r) => setTimeout(r, input.sleepMs));
    return input;
  },
});

/** Clients blocked in XREAD on the server: the pollers the API holds open. */
async function blockedXreads(raw: Redis): Promise<number> {
  const list = (await raw.client('LIST')) as string;
  return list.split('\n').filter((l) => /\bcmd=xread\b/.test(l) && /\bflags=\w*b/.test(l)).length;
}

describe('HTTP API live streams', () => {
  let redis: TestRedis;
  let api: Api;
  let supervisor: Supervisor | undefined;
  let raw: Redis;
  const readers: SseReader[] = [];
  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  after(async () => {
    raw.disconnect();
    await redis.stop();
  });
  afterEach(async () => {
    for (const r of readers.splice(0)) r.close();
    await supervisor?.stop({ graceMs: 0 });
    supervisor = undefined;
    await api.close();
  });

  async function start(options: { worker?: boolean; heartbeatMs?: number } = {}): Promise<void> {
    api = await startApi(redis, { jobs: [echo], heartbeatMs: options.heartbeatMs });
    if (options.worker !== false) {
      supervisor = new Supervisor({
        store: api.store,
        jobs: [echo],
        logger: pino({ level: 'silent' }),
        ...FAST,
      });
      await supervisor.start();
    }
  }

  async function follow(path: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const r = await openSse(api.url + path, headers);
    readers.push(r);
    return r;
  }

  const enqueue = async (input: unknown = null): Promise<string> =>
    (await api.call('POST', '/jobs', { body: { machine: 'echo', input } })).json.job_id;

  it('GET /events streams the queue’s lifecycle events, each with its stream position as id', async () => {
    await start();
    await enqueue(); // the queue exists once something was enqueued on it
    const stream = await follow('/events?queue=default');
    assert.equal(stream.status, 200);
    const id = await enqueue();
    const done = await stream.until((m) => m.data?.jobId === id && m.data?.status === 'done');
    assert.match(done.id!, /^\d+-\d+$/);
    const types = stream.messages.filter((m) => m.data?.jobId === id).map((m) => m.data.type);
    assert.deepEqual(types.slice(0, 1), ['enqueued']);
    assert.ok(types.includes('done'));
  });

  it('resumes with Last-Event-ID: what happened while away comes once, then live events', async () => {
    await start();
    const first = await enqueue();
    const stream = await follow('/events');
    const second = await enqueue();
    const seen = await stream.until((m) => m.data?.jobId === second && m.data?.status === 'done');
    stream.close();
    // While away: two more jobs run.
    const missed = [await enqueue(), await enqueue()];
    for (const id of missed)
      await eventually(async () => (await api.call('GET', `/jobs/${id}`)).json.status === 'done');
    const resumed = await follow('/events', { 'last-event-id': seen.id! });
    for (const id of missed) await resumed.until((m) => m.data?.jobId === id && m.data?.status === 'done');
    const live = await enqueue();
    await resumed.until((m) => m.data?.jobId === live && m.data?.status === 'done');
    const jobs = resumed.messages.filter((m) => m.data).map((m) => m.data.jobId as string);
    assert.ok(!jobs.includes(first) && !jobs.includes(second), 'nothing from before the last id');
    const ids = resumed.messages.filter((m) => m.id).map((m) => `${m.id} ${m.data.jobId} ${m.data.type}`);
    assert.equal(new Set(ids).size, ids.length, 'nothing twice');
  });

  it('GET /jobs/:id/stream sends the record, the job’s changes, its final record, then ends', async () => {
    await start();
    const other = await enqueue({ sleepMs: 50 });
    const id = await enqueue({ sleepMs: 400 });
    const stream = await follow(`/jobs/${id}/stream`);
    const firstMessage = await stream.until((m) => m.event === 'job');
    assert.equal(firstMessage.data.id, id);
    await stream.ended;
    const events = stream.messages.filter((m) => m.data && m.event === undefined);
    assert.ok(
      events.every((m) => m.data.jobId === id),
      'only this job’s events',
    );
    assert.ok(!events.some((m) => m.data.jobId === other));
    assert.equal(events.at(-1)!.data.status, 'done');
    const last = stream.messages.filter((m) => m.event === 'job').at(-1)!;
    assert.equal(last.data.status, 'done');
    assert.equal(last.data.output.sleepMs, 400);
  });

  it('GET /jobs/:id/stream of a finished job sends its record and ends; unknown job or queue is 404', async () => {
    await start();
    const id = (await api.call('POST', '/jobs?wait=10s', { body: { machine: 'echo' } })).json.id as string;
    const stream = await follow(`/jobs/${id}/stream`);
    await stream.ended;
    assert.deepEqual(
      stream.messages.filter((m) => m.event === 'job').map((m) => m.data.status),
      ['done'],
    );
    assert.equal((await api.call('GET', '/jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV/stream')).status, 404);
    const queue = await api.call('GET', '/events?queue=nowhere');
    assert.equal(queue.status, 404);
    assert.equal(queue.json.error.code, 'UNKNOWN_QUEUE');
  });

  it('resumes a job stream with Last-Event-ID after the job finished: the missed events, then the end', async () => {
    await start();
    const id = await enqueue({ sleepMs: 300 });
    const stream = await follow(`/jobs/${id}/stream`);
    const record = await stream.until((m) => m.event === 'job');
    stream.close();
    await eventually(async () => (await api.call('GET', `/jobs/${id}`)).json.status === 'done');
    const resumed = await follow(`/jobs/${id}/stream`, { 'last-event-id': record.id! });
    await resumed.ended;
    const statuses = resumed.messages.filter((m) => m.data && !m.event).map((m) => m.data.status);
    assert.equal(statuses.at(-1), 'done');
    assert.equal(resumed.messages.filter((m) => m.event === 'job').at(-1)?.data.status, 'done');
  });

  it('sends heartbeat comments while nothing happens', async () => {
    await start({ worker: false, heartbeatMs: 100 });
    await enqueue();
    const stream = await follow('/events');
    await stream.until((m) => m.comment === 'keep-alive');
  });

  it('serves 100 open streams of one queue with one blocking Redis read, released when they close', async () => {
    await start({ worker: false });
    await enqueue();
    const streams = await Promise.all(Array.from({ length: 100 }, () => follow('/events')));
    assert.ok(streams.every((s) => s.status === 200));
    await eventually(async () => (await blockedXreads(raw)) === 1, 5000);
    const id = await enqueue();
    await Promise.all(streams.map((s) => s.until((m) => m.data?.jobId === id)));
    assert.equal(await blockedXreads(raw), 1, 'still one poller');
    for (const s of streams) s.close();
    // The poller stops within one block (1 s) of its last client going.
    await eventually(async () => (await blockedXreads(raw)) === 0, 10_000, 100);
  });

  it('ends open streams when the server closes, so close() does not hang', async () => {
    await start({ worker: false });
    await enqueue();
    const stream = await follow('/events');
    await api.app.close();
    await stream.ended;
    // afterEach closes again: a second close is harmless.
  });
});
