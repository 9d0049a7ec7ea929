// Redis only: the Lua scripts' wire format.
// The store's commit/claim wire format (encodeOps.ts, lua/commit-12.lua): a plain done travels
// as its short named record, other ops in full, in any mix; a claim returns the rare fields nested.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import type { NewJob } from '../../src/store/types.js';

const job = (id: string, extra: Partial<NewJob> = {}): NewJob => ({
  id,
  machine: 'm',
  version: 3,
  input: '{"n":1}',
  band: 1,
  delayMs: 0,
  maxAttempts: 5,
  ...extra,
});

describe('commit wire format', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('claims with every field, and applies plain and full done ops mixed in one call', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [
      job('a'),
      job('b', { options: '{"timeoutMs":50}' }),
      job('c'),
      job('p'),
    ]);
    await h.store.enqueue('default', [
      job('k', { parentId: 'p', group: 'g', index: 0, parentQueue: 'other' }),
    ]);
    const claim = { workerId: 'w1', leaseMs: 30_000, max: 10, loadMachines: [] };
    const { claimed } = await h.store.commit('default', [], claim);
    assert.deepEqual(
      claimed.map((c) => c.id),
      ['a', 'b', 'c', 'p', 'k'],
    );
    const a = claimed[0]!;
    assert.deepEqual(
      { ...a, token: '' },
      {
        id: 'a',
        token: '',
        machine: 'm',
        version: 3,
        input: '{"n":1}',
        snapshot: undefined,
        attempt: 1,
        maxAttempts: 5,
        leaseRequeues: 0,
        parentId: undefined,
        options: undefined,
        status: 'working',
        inbox: 0,
        parentQueue: undefined,
        hasInbox: false,
        parentState: undefined,
        retryLaters: 0,
      },
    );
    assert.match(a.token, /^w1:\d+$/);
    assert.equal(claimed[1]!.options, '{"timeoutMs":50}');
    assert.equal(claimed[4]!.parentId, 'p');
    assert.equal(claimed[4]!.parentQueue, 'other');
    assert.equal(claimed[4]!.parentState, undefined, 'a parent on another queue is not checked by the claim');

    const [, b, c, p] = claimed as [unknown, (typeof claimed)[0], (typeof claimed)[0], (typeof claimed)[0]];
    const res = await h.store.commit('default', [
      { kind: 'done', id: 'a', token: a.token, output: '1', snapshot: '', log: ['{"type":"done"}'] },
      { kind: 'checkpoint', id: 'b', token: b.token, status: 'working', progress: '7', log: [] },
      {
        kind: 'done',
        id: 'c',
        token: c.token,
        output: '3',
        snapshot: '',
        state: '"done"',
        log: ['{"type":"done"}'],
      },
      { kind: 'done', id: 'p', token: 'stale', output: '4', snapshot: '', log: ['{"type":"done"}'] },
      { kind: 'done', id: 'b', token: b.token, output: '2', snapshot: '', log: ['{"type":"done"}'] },
      {
        kind: 'done',
        id: 'p',
        token: p.token,
        output: '4',
        snapshot: '{"w":{"value":"end"}}',
        log: ['{"type":"done"}'],
      },
    ]);
    assert.deepEqual(res.written, [true, true, true, false, true, true]);
    const rec = async (id: string) => (await h.store.getJob(id, 'default'))!;
    assert.equal((await rec('a')).output, 1);
    assert.equal((await rec('b')).output, 2);
    assert.deepEqual((await rec('b')).progress, 7);
    assert.equal((await rec('c')).state, 'done');
    // The machine's part as the op stored it; the lifecycle is the record's (lifecycleView.ts).
    assert.deepEqual((await rec('p')).snapshot, {
      l: { value: 'done', context: { attempt: 1, maxAttempts: 5 } },
      w: { value: 'end' },
    });
    for (const id of ['a', 'b', 'c', 'p']) assert.equal((await rec(id)).status, 'done');
    const types = async (id: string) => (await h.store.getLog(id, 'default')).map((e) => e.type);
    assert.deepEqual(await types('a'), ['enqueued', 'claimed', 'done']);
    assert.deepEqual(await types('b'), ['enqueued', 'claimed', 'done']);
    assert.equal(await h.raw.hget(h.key('job:a'), 'ls'), null, 'a plain log stays implicit');
    assert.equal(
      await h.raw.hget(h.key('job:b'), 'ls'),
      '3',
      'a checkpoint wrote the log out: the done after it is entry 3',
    );
    // Checkpoints of one call share a combined stream entry, written before the call's done
    // entry: a job's stream events keep their order.
    const events = await h.store.readEvents('default', '0', 0, 1000);
    assert.deepEqual(
      events.filter((e) => e.jobId === 'b').map((e) => [e.type, e.status]),
      [
        ['enqueued', 'queued'],
        ['claimed', 'working'],
        ['checkpoint', 'working'],
        ['done', 'done'],
      ],
    );
  });
  it('a claim of jobs of two machines gives each its own machine, version and input; a commit whose every op is written says so of each', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [
      job('x1'),
      job('y1', { machine: 'other', version: 7, maxAttempts: 2, input: '{"n":2}' }),
      job('x2'),
      job('x3', { options: '{"timeoutMs":50}' }),
      job('x4'),
    ]);
    const claim = { workerId: 'w1', leaseMs: 30_000, max: 10, loadMachines: [] };
    const { claimed } = await h.store.commit('default', [], claim);
    assert.deepEqual(
      claimed.map((c) => [c.id, c.machine, c.version, c.maxAttempts, c.input, c.options]),
      [
        ['x1', 'm', 3, 5, '{"n":1}', undefined],
        ['y1', 'other', 7, 2, '{"n":2}', undefined],
        ['x2', 'm', 3, 5, '{"n":1}', undefined],
        ['x3', 'm', 3, 5, '{"n":1}', '{"timeoutMs":50}'],
        ['x4', 'm', 3, 5, '{"n":1}', undefined],
      ],
    );
    for (const c of claimed) assert.match(c.token, /^w1:\d+$/);
    // One run of plain dones sharing their output (encodeOps.ts), one with a lost lease inside it.
    const dones = claimed.map((c) => ({
      kind: 'done' as const,
      id: c.id,
      token: c.id === 'x2' ? 'lost' : c.token,
      output: '1',
      snapshot: '',
      log: ['{"type":"done"}'],
    }));
    const res = await h.store.commit('default', dones);
    assert.deepEqual(res.written, [true, true, false, true, true]);
    const again = await h.store.commit('default', [{ ...dones[2]!, token: claimed[2]!.token }]);
    assert.deepEqual(again.written, [true]);
    for (const c of claimed) assert.equal((await h.store.getJob(c.id, 'default'))!.output, 1);
  });
});
