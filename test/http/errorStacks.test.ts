// A failed job's error stack names the server's files and code paths: the API shows it only to
// callers with a write token (the operators who redrive and cancel), or to every caller when the
// server is started with `exposeErrorStacks` (`serve --expose-error-stacks`). A read-only
// client gets the error's name, message and code, in every place a record or dead letter is
// answered: the record, the list, the `?wait` reply, the live stream, the dead letters, and the
// dashboard's job view.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { defineJob, Supervisor } from '../../src/index.js';
import { FAST } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { openSse, READ_TOKEN, startApi, TOKEN, type Api } from '../support/api.js';

const boom = defineJob({
  name: 'boom',
  retry: { maxAttempts: 1 },
  work: () => {
    throw new Error('no luck', { cause: new Error('deeper') });
  },
});

/** Every `stack` anywhere in a reply, by path. */
function stacks(value: unknown, path = '$'): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k === 'stack' ? [`${path}.${k}`] : stacks(v, `${path}.${k}`),
  );
}

describe('HTTP API error stacks', () => {
  let redis: TestRedis;
  let api: Api;
  let supervisor: Supervisor;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    await supervisor.stop({ graceMs: 0 });
    await api.close();
  });

  async function start(options: { exposeErrorStacks?: boolean } = {}): Promise<string> {
    api = await startApi(redis, { jobs: [boom], ...options });
    supervisor = new Supervisor({
      store: api.store,
      jobs: [boom],
      logger: pino({ level: 'silent' }),
      ...FAST,
    });
    await supervisor.start();
    const failed = await api.call('POST', '/jobs?wait=10s', { body: { machine: 'boom' } });
    assert.equal(failed.json.status, 'failed');
    return failed.json.id as string;
  }

  /** What a caller with `token` is answered about the failed job, everywhere it is shown. */
  async function seen(id: string, token: string): Promise<Record<string, unknown>> {
    const stream = await openSse(`${api.url}/jobs/${id}/stream`, { authorization: `Bearer ${token}` });
    await stream.ended;
    return {
      record: (await api.call('GET', `/jobs/${id}`, { token })).json,
      list: (await api.call('GET', '/jobs?status=failed', { token })).json,
      deadLetters: (await api.call('GET', '/dead-letters', { token })).json,
      stream: stream.messages.filter((m) => m.event === 'job').map((m) => m.data),
      dashboard: (await api.call('GET', `/dashboard/api/jobs/${id}/view`, { token })).json,
    };
  }

  it('shows no stack to a read-only token; a write token sees it', async () => {
    const id = await start();
    const read = await seen(id, READ_TOKEN);
    assert.deepEqual(stacks(read), [], 'no stack for a read-only client');
    const record = read.record as { error: { name: string; message: string; cause: { message: string } } };
    assert.equal(record.error.message, 'no luck');
    assert.equal(record.error.cause.message, 'deeper');
    const write = await seen(id, TOKEN);
    for (const where of ['record', 'list', 'deadLetters', 'stream', 'dashboard'])
      assert.ok(stacks(write[where]).length > 0, `a write token sees the stack in ${where}`);
  });

  it('shows stacks to every caller when the server is started with exposeErrorStacks', async () => {
    const id = await start({ exposeErrorStacks: true });
    const read = await seen(id, READ_TOKEN);
    for (const where of ['record', 'list', 'deadLetters', 'stream', 'dashboard'])
      assert.ok(stacks(read[where]).length > 0, `exposeErrorStacks: the stack in ${where}`);
  });
});
