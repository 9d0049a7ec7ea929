// Commit ops travel to lua/commit-12.lua as named records under CommitOp's own field names
// (src/store/redis/encodeOps.ts, commitOpFields.ts): every field of every kind goes by its name,
// a plain done as { kind, id, token, output }, and the Lua refuses an op it cannot read, naming
// the op and why, before it writes anything.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CommitOp } from '../../../src/store/types.js';
import { encodeOps } from '../../../src/store/redis/encodeOps.js';
import { COMMIT_OP_FIELDS, COMMIT_OP_TYPES } from '../../../src/store/redis/commitOpFields.js';
import { queueKeys } from '../../../src/store/keys.js';
import { loadScripts } from '../../../src/store/redis/scripts.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { Harness } from '../../support/harness.js';

type Full<K extends CommitOp['kind']> = Required<Extract<CommitOp, { kind: K }>>;

/**
 * One op of each kind with EVERY field set: typed Required<...>, so a field added to CommitOp
 * does not compile here until it is added, and then the test below checks it travels.
 */
const FULL: { [K in CommitOp['kind']]: Full<K> } = {
  checkpoint: {
    kind: 'checkpoint',
    id: 'j',
    token: 't',
    status: 'working',
    snapshot: '{"l":1}',
    state: '"s"',
    progress: '5',
    inboxConsumed: 2,
    version: 3,
    log: ['{"type":"progress"}'],
  },
  done: {
    kind: 'done',
    id: 'j',
    token: 't',
    output: '1',
    snapshot: '{"l":1}',
    state: '"s"',
    version: 3,
    log: ['{"type":"done"}'],
  },
  fail: {
    kind: 'fail',
    id: 'j',
    token: 't',
    error: '{"message":"x"}',
    snapshot: '{"l":1}',
    state: '"s"',
    resume: '{"l":0}',
    version: 3,
    log: ['{"type":"failed"}'],
  },
  retry: {
    kind: 'retry',
    id: 'j',
    token: 't',
    error: '{"message":"x"}',
    delayMs: 1000,
    attempt: 2,
    snapshot: '{"l":1}',
    retryLaters: 1,
    version: 3,
    log: ['{"type":"retry-scheduled"}'],
  },
  cancelled: {
    kind: 'cancelled',
    id: 'j',
    token: 't',
    snapshot: '{"l":1}',
    state: '"s"',
    version: 3,
    log: ['{"type":"cancelled"}'],
  },
  requeue: { kind: 'requeue', id: 'j', token: 't', log: ['{"type":"requeued"}'] },
  park: {
    kind: 'park',
    id: 'j',
    token: 't',
    wakeAt: 1_700_000_000_000,
    snapshot: '{"l":1}',
    state: '"s"',
    inboxConsumed: 2,
    version: 3,
    log: ['{"type":"waiting"}'],
  },
  broken: { kind: 'broken', id: 'j', token: 't', error: '{"message":"x"}', log: ['{"type":"failed"}'] },
};

describe('commit ops as named records', () => {
  it('sends every field of every kind under its CommitOp name, and lists each with a type', () => {
    for (const op of Object.values(FULL)) {
      const [rec] = JSON.parse(encodeOps([op])) as Record<string, unknown>[];
      assert.deepEqual(rec, op, `${op.kind} travels as itself`);
      const named = Object.keys(op).filter((k) => k !== 'kind' && k !== 'id' && k !== 'token');
      assert.deepEqual([...COMMIT_OP_FIELDS[op.kind]].sort(), named.sort(), `${op.kind}'s field list`);
      for (const f of named) assert.ok(f in COMMIT_OP_TYPES, `${f} has a type`);
    }
  });

  it('sends a plain done as { kind, id, token, output }, and leaves out what an op does not set', () => {
    const plain: CommitOp = {
      kind: 'done',
      id: 'a',
      token: 't',
      output: '{"n":1}',
      snapshot: '',
      log: ['{"type":"done"}'],
    };
    const stated: CommitOp = { ...plain, state: '"end"' };
    const parked: CommitOp = { kind: 'park', id: 'b', token: 't', wakeAt: null, snapshot: '{}', log: [] };
    assert.deepEqual(JSON.parse(encodeOps([plain, stated, parked])), [
      { kind: 'done', id: 'a', token: 't', output: '{"n":1}' },
      { ...stated },
      { kind: 'park', id: 'b', token: 't', snapshot: '{}', log: [] },
    ]);
  });

  describe('in Redis', () => {
    let redis: TestRedis;
    let h: Harness;
    before(async () => (redis = await startRedis()));
    after(async () => redis.stop());
    afterEach(async () => h.close());

    /** commit-12.lua called with `ops` as its ARGV 8, as is (no encoder). */
    const commitRaw = async (ops: string): Promise<unknown> => {
      const script = loadScripts().find((s) => s.name === 'commit')!;
      const k = queueKeys(h.prefix, 'default');
      const keys = [k.queued, k.delayed, k.active, k.meta, k.events, k.marker, k.waiting, k.done, k.failed];
      keys.push(k.cancelled, k.dead, k.broken);
      return h.raw.eval(script.lua, 12, ...keys, k.base, 1000, 60_000, '', 0, 0, '', ops);
    };

    it('refuses an op it cannot read, naming its index and why, and writes nothing', async () => {
      h = new Harness(redis);
      await h.store.enqueue('default', [
        { id: 'a', machine: 'm', version: 1, input: '1', band: 1, delayMs: 0, maxAttempts: 3 },
      ]);
      const [a] = (
        await h.store.commit('default', [], { workerId: 'w', leaseMs: 30_000, max: 1, loadMachines: [] })
      ).claimed;
      const done = { kind: 'done', id: 'a', token: a!.token, output: '1' };
      const op = { id: 'a', token: a!.token };
      const cases: [unknown, RegExp][] = [
        ['not json', / BAD_COMMIT 0 ops are not a JSON array/],
        [{ 0: done }, / BAD_COMMIT 0 ops are not a JSON array/],
        [[done, 42], / BAD_COMMIT 2 not an op record/],
        [[done, { ...op, kind: 'finish', log: [] }], / BAD_COMMIT 2 unknown kind finish/],
        [[done, { kind: 'done', token: 't', output: '1' }], / BAD_COMMIT 2 missing values/],
        [[done, { ...op, kind: 'done', log: [] }], / BAD_COMMIT 2 output is not text/],
        [
          [done, { ...op, kind: 'checkpoint', status: 'working', snapshot: 5, log: [] }],
          / BAD_COMMIT 2 snapshot is not text/,
        ],
        [
          [done, { ...op, kind: 'checkpoint', status: 'working', log: [{ type: 'x' }] }],
          / BAD_COMMIT 2 log holds an entry/,
        ],
        [
          [done, { ...op, kind: 'checkpoint', status: 'working', log: 'x' }],
          / BAD_COMMIT 2 log is not a list/,
        ],
        [[done, { ...op, kind: 'fail', error: '{}' }], / BAD_COMMIT 2 log missing/],
        [
          [done, { ...op, kind: 'retry', error: '{}', delayMs: '5', attempt: 2, log: [] }],
          / BAD_COMMIT 2 retry delay/,
        ],
        [[done, { ...op, kind: 'requeue', version: 2, log: [] }], / BAD_COMMIT 2 version/],
        [
          [done, { ...op, kind: 'checkpoint', status: 'working', inboxConsumed: -1, log: [] }],
          / BAD_COMMIT 2 inbox position/,
        ],
      ];
      for (const [ops, why] of cases) {
        await assert.rejects(
          commitRaw(typeof ops === 'string' ? ops : JSON.stringify(ops)),
          why,
          String(why),
        );
      }
      assert.equal((await h.store.getJob('a'))!.status, 'working', 'the readable op before was not applied');
      assert.deepEqual(await commitRaw(JSON.stringify([done])).then((r) => (r as unknown[])[0]), [1]);
      assert.equal((await h.store.getJob('a'))!.status, 'done');
    });
  });
});
