// Commit ops travel to lua/commit-12.lua as flat values in the order of the generated
// COMMIT_OP_FIELDS table (src/store/redis/encodeOps.ts, commitOpFields.ts), and the Lua rebuilds
// each under CommitOp's own field names (lua/include/readCommitOps.lua): every field of every kind
// arrives under its name, a plain done as 4 values, and the Lua refuses an op it cannot read,
// naming the op and why, before it writes anything.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CommitOp } from '../../../src/store/types.js';
import { encodeOps } from '../../../src/store/redis/encodeOps.js';
import {
  COMMIT_COMPACT,
  COMMIT_COMPACT_RUN,
  COMMIT_OP_FIELDS,
  COMMIT_OP_TYPES,
  COMMIT_PLAIN_DONE,
} from '../../../src/store/redis/commitOpFields.js';
import { queueKeys } from '../../../src/store/keys.js';
import { loadScripts, withIncludes } from '../../../src/store/redis/scripts.js';
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
    holdMs: 500,
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

describe('commit ops by name', () => {
  it('lists every field of every kind, each with a type, the log last', () => {
    for (const op of Object.values(FULL)) {
      const named = Object.keys(op).filter((k) => k !== 'kind' && k !== 'id' && k !== 'token');
      assert.deepEqual([...COMMIT_OP_FIELDS[op.kind]].sort(), named.sort(), `${op.kind}'s field list`);
      for (const f of named) assert.ok(f in COMMIT_OP_TYPES, `${f} has a type`);
      assert.equal(COMMIT_OP_FIELDS[op.kind].at(-1), 'log', `${op.kind}'s log goes last`);
    }
  });

  it("has compact forms whose fields are their kind's but version, where lcCompactOp.lua reads them", () => {
    for (const { kind, own, shared } of Object.values(COMMIT_COMPACT)) {
      const all: readonly string[] = COMMIT_OP_FIELDS[kind];
      assert.deepEqual([...own, ...shared].sort(), all.filter((f) => f !== 'version').sort());
      assert.equal(shared.at(-1), 'log', 'the log goes last');
    }
    // lua/include/lcCompactOp.lua and readCommitOps.lua read these by position: a change here
    // must change them too.
    assert.deepEqual(COMMIT_COMPACT, {
      C: {
        kind: 'checkpoint',
        own: ['snapshot'],
        shared: ['status', 'state', 'progress', 'inboxConsumed', 'log'],
      },
      S: { kind: 'done', own: ['output'], shared: ['snapshot', 'state', 'log'] },
    });
  });

  it('sends a run of plain dones as one op: their shared output once, 2 values a done; else 3 (4 or more), else 4', () => {
    const d = (id: string, output: string): Extract<CommitOp, { kind: 'done' }> => ({
      kind: 'done',
      id,
      token: `t${id}`,
      output,
      snapshot: '',
      log: ['{"type":"done"}'],
    });
    const stated: CommitOp = { ...d('s', '1'), state: '"end"' };
    // (A done with a state is not plain: its compact form, COMMIT_COMPACT's S.)
    const statedWire = ['S', 's', 'ts', '1', '', '', '"end"', 1, '{"type":"done"}'];
    assert.deepEqual(encodeOps([d('a', '1'), d('b', '1'), d('c', '1'), stated, d('e', '2')]), [
      ...[COMMIT_PLAIN_DONE, '', 3, '1', 'a', 'ta', 'b', 'tb', 'c', 'tc'],
      ...statedWire,
      ...[COMMIT_PLAIN_DONE, 'e', 'te', '2'],
    ]);
    assert.deepEqual(encodeOps([d('a', '1'), d('b', '2'), d('c', '3'), d('e', '4')]), [
      ...[COMMIT_PLAIN_DONE, '', 4, '', 'a', 'ta', '1', 'b', 'tb', '2', 'c', 'tc', '3', 'e', 'te', '4'],
    ]);
    assert.deepEqual(encodeOps([d('a', '1'), d('b', '2')]), [
      ...[COMMIT_PLAIN_DONE, 'a', 'ta', '1', COMMIT_PLAIN_DONE, 'b', 'tb', '2'],
    ]);
  });

  it('sends an op as its kind, id, token, then its fields in table order, a plain done as 4 values', () => {
    const plain: CommitOp = {
      kind: 'done',
      id: 'a',
      token: 't',
      output: '{"n":1}',
      snapshot: '',
      log: ['{"type":"done"}'],
    };
    const stated: CommitOp = { ...plain, state: '"end"' };
    const migrated: CommitOp = { ...stated, version: 2 };
    const parked: CommitOp = { kind: 'park', id: 'b', token: 't', wakeAt: null, snapshot: '{}', log: [] };
    const step: CommitOp = {
      kind: 'checkpoint',
      id: 'c',
      token: 't',
      status: 'working',
      snapshot: '{}',
      state: '"s"',
      inboxConsumed: 0,
      log: ['{"type":"state","state":"s"}'],
    };
    const ops = [plain, stated, migrated, parked, step, { ...step, id: 'd' }, { ...step, state: '"u"' }];
    assert.deepEqual(encodeOps([...ops, { ...step, version: 2 }, { ...stated, id: 'e' }]), [
      ...[COMMIT_PLAIN_DONE, 'a', 't', '{"n":1}'],
      // compact: output, then '' and the shared values (set 1): snapshot, state, log (a count, then the entries)
      ...['S', 'a', 't', '{"n":1}', '', '', '"end"', 1, '{"type":"done"}'],
      // with a version, in full: output, snapshot, state, version, log
      ...['done', 'a', 't', '{"n":1}', '', '"end"', 2, 1, '{"type":"done"}'],
      // wakeAt, snapshot, state, inboxConsumed, version, log
      ...['park', 'b', 't', '', '{}', '', '', '', 0],
      // compact: snapshot, then '' and the shared values (set 2): status, state, progress, inboxConsumed, log
      ...['C', 'c', 't', '{}', '', 'working', '"s"', '', 0, 1, '{"type":"state","state":"s"}'],
      // the same shared values: set 2's number
      ...['C', 'd', 't', '{}', 2],
      // another state: set 3
      ...['C', 'c', 't', '{}', '', 'working', '"u"', '', 0, 1, '{"type":"state","state":"s"}'],
      ...['checkpoint', 'c', 't', 'working', '{}', '"s"', '', 0, 2, 1, '{"type":"state","state":"s"}'],
      ...['S', 'e', 't', '{"n":1}', 1],
    ]);
    // Three or more next to each other sharing their values: a RUN, each op its id, token and
    // own values; a set sent before is named by its number.
    const more = ['f', 'g', 'h'].map((id) => ({ ...step, id }));
    assert.deepEqual(encodeOps([step, ...more, { ...step, state: '"u"' }, ...more]), [
      ...[COMMIT_COMPACT_RUN, 'C', 4, '', 'working', '"s"', '', 0, 1, '{"type":"state","state":"s"}'],
      ...['c', 't', '{}', 'f', 't', '{}', 'g', 't', '{}', 'h', 't', '{}'],
      ...['C', 'c', 't', '{}', '', 'working', '"u"', '', 0, 1, '{"type":"state","state":"s"}'],
      ...[COMMIT_COMPACT_RUN, 'C', 3, 1, 'f', 't', '{}', 'g', 't', '{}', 'h', 't', '{}'],
    ]);
  });

  describe('in Redis', () => {
    let redis: TestRedis;
    let h: Harness;
    before(async () => (redis = await startRedis()));
    after(async () => redis.stop());
    afterEach(async () => h.close());

    /** commit-12.lua called with `ops` as its ARGV from 11 on, as they are (no encoder). */
    const commitRaw = async (ops: (string | number)[]): Promise<unknown> => {
      const script = loadScripts().find((s) => s.name === 'commit')!;
      const k = queueKeys(h.prefix, 'default');
      const keys = [k.queued, k.delayed, k.active, k.meta, k.events, k.marker, k.waiting, k.done, k.failed];
      keys.push(k.cancelled, k.dead, k.broken);
      return h.raw.eval(script.lua, 12, ...keys, k.base, 1000, 60_000, '', 0, 0, '', 0, 0, 0, ...ops);
    };

    it('reads every field of every kind under its CommitOp name, and a plain done as its 4 values', async () => {
      h = new Harness(redis);
      // The reader commit-12.lua uses, on the encoder's values: the op it rebuilt, as JSON.
      // A compact op is checked, not read: the record its general path gets is made by
      // lcCompactOp.lua (for a job whose status the compact path does not take: queued here).
      const read = withIncludes(`--- @include "readCommitOps"
--- @include "lcCompactOp"
local ops, at, n = readCommitOps(1)
if not ops then return { 'refused', at, n } end
if at[1] and at[1] < 0 then
  -- Plain dones: each one's id and token, then its output.
  local out = { 'plain', n }
  for i = 1, n do
    out[#out + 1] = ARGV[-at[i]]; out[#out + 1] = ARGV[-at[i] + 1]; out[#out + 1] = ARGV[ops[i]]
  end
  return out
end
local p = at[n]
if p then
  -- (A compact op's place: its id's, its token next.)
  local jk = 'job:' .. ARGV[p]
  redis.call('HSET', jk, 'st', 'queued', 'tk', ARGV[p + 1])
  local written, op = lcCompactOp(p, ops[n])
  redis.call('DEL', jk)
  return { 'compact', n, cjson.encode(op) }
end
return { 'op', n, cjson.encode(ops[n]) }`);
      for (const op of Object.values(FULL)) {
        const [form, n, json] = (await h.raw.eval(read, 0, ...encodeOps([op]))) as [string, number, string];
        assert.deepEqual([form, n], ['op', 1], `${op.kind} is read`);
        assert.deepEqual(JSON.parse(json), op, `${op.kind} arrives as itself`);
      }
      for (const { version: _v, ...op } of [FULL.checkpoint, FULL.done]) {
        const [form, n, json] = (await h.raw.eval(read, 0, ...encodeOps([op]))) as [string, number, string];
        assert.deepEqual([form, n], ['compact', 1], `${op.kind} without a version is compact`);
        assert.deepEqual(JSON.parse(json), op, `${op.kind} arrives as itself`);
        // The second shares the first's values (their set's number): it arrives as itself too.
        const second = { ...op, id: 'k', token: 'u' };
        const wire = encodeOps([op, second]);
        assert.equal(wire.length - encodeOps([op]).length, 5, 'the second sends 5 values');
        const [form2, n2, json2] = (await h.raw.eval(read, 0, ...wire)) as [string, number, string];
        assert.deepEqual([form2, n2], ['compact', 2]);
        assert.deepEqual(
          JSON.parse(json2),
          second,
          `a second ${op.kind} sharing the first's values arrives as itself`,
        );
        // Four sharing them: a RUN (COMMIT_COMPACT_RUN), 2 + own values an op; the last arrives
        // as itself.
        const four = ['k', 'l', 'm', 'n'].map((id, i) => ({ ...op, id, token: `u${i}` }));
        const runWire = encodeOps(four);
        assert.deepEqual(runWire.slice(0, 3), [COMMIT_COMPACT_RUN, op.kind === 'done' ? 'S' : 'C', 4]);
        // Its head (3 values) and 3 an op, where the first alone sent 4 and its set.
        assert.equal(runWire.length - encodeOps([op]).length, 3 + 4 * 3 - 4, 'each op sends 3 values');
        const [form4, n4, json4] = (await h.raw.eval(read, 0, ...runWire)) as [string, number, string];
        assert.deepEqual([form4, n4], ['compact', 4]);
        assert.deepEqual(JSON.parse(json4), four[3], `the last ${op.kind} of a run arrives as itself`);
      }
      const plain: CommitOp = {
        kind: 'done',
        id: 'a',
        token: 't',
        output: '7',
        snapshot: '',
        log: ['{"type":"done"}'],
      };
      assert.deepEqual(await h.raw.eval(read, 0, ...encodeOps([plain])), ['plain', 1, 'a', 't', '7']);
      // Runs of plain dones: one output shared, or each its own.
      const run = ['a', 'b', 'c', 'd'].map((id) => ({ ...plain, id, token: `t${id}` }));
      assert.deepEqual(await h.raw.eval(read, 0, ...encodeOps(run)), [
        'plain',
        4,
        ...run.flatMap((d) => [d.id, d.token, '7']),
      ]);
      const own = run.map((d, i) => ({ ...d, output: String(i) }));
      assert.deepEqual(await h.raw.eval(read, 0, ...encodeOps(own)), [
        'plain',
        4,
        ...own.flatMap((d) => [d.id, d.token, d.output]),
      ]);
    });

    it('refuses an op it cannot read, naming its index and why, and writes nothing', async () => {
      h = new Harness(redis);
      await h.store.enqueue('default', [
        { id: 'a', machine: 'm', version: 1, input: '1', band: 1, delayMs: 0, maxAttempts: 3 },
      ]);
      const [a] = (
        await h.store.commit('default', [], { workerId: 'w', leaseMs: 30_000, max: 1, loadMachines: [] })
      ).claimed;
      const done = [COMMIT_PLAIN_DONE, 'a', a!.token, '1'];
      /** Op 'a' of `kind` on the wire: `fields` by name in table order ('' for the others), then `log` as given. */
      const op = (
        kind: CommitOp['kind'],
        fields: Record<string, string | number>,
        log: (string | number)[] = [0],
      ): (string | number)[] => [
        kind,
        'a',
        a!.token,
        ...COMMIT_OP_FIELDS[kind].filter((f) => f !== 'log').map((f) => fields[f] ?? ''),
        ...log,
      ];
      const working = { status: 'working' };
      const cases: [(string | number)[], RegExp][] = [
        [[...done, 'finish', 'a', a!.token], / BAD_COMMIT 2 unknown kind finish/],
        [[...done, COMMIT_PLAIN_DONE, '', 't', '1'], / BAD_COMMIT 2 not a count of plain dones/],
        [[...done, COMMIT_PLAIN_DONE, '', 0, '1'], / BAD_COMMIT 2 not a count of plain dones/],
        [[...done, COMMIT_PLAIN_DONE, '', 2, '1', 'a', 't'], / BAD_COMMIT 2 missing values/],
        [[...done, COMMIT_PLAIN_DONE, '', 2, '1', 'a', 't', '', 't'], / BAD_COMMIT 3 missing values/],
        [
          [...done, COMMIT_PLAIN_DONE, '', 2, '', 'a', 't', '1', 'b', 't', ''],
          / BAD_COMMIT 3 output missing/,
        ],
        [[...done, COMMIT_PLAIN_DONE, 'a', 't'], / BAD_COMMIT 2 missing values/],
        [[...done, COMMIT_PLAIN_DONE, 'a', 't', ''], / BAD_COMMIT 2 output missing/],
        [[...done, ...op('done', {})], / BAD_COMMIT 2 output missing/],
        [[...done, ...op('fail', {})], / BAD_COMMIT 2 error missing/],
        [[...done, ...op('checkpoint', working).slice(0, -2)], / BAD_COMMIT 2 missing values/],
        [[...done, ...op('checkpoint', working, ['x'])], / BAD_COMMIT 2 log is not a count of entries/],
        [[...done, ...op('checkpoint', working, [2, '{}'])], / BAD_COMMIT 2 log is not a count of entries/],
        [[...done, ...op('checkpoint', { status: 'done' })], / BAD_COMMIT 2 checkpoint status/],
        [
          [...done, ...op('retry', { error: '{}', delayMs: 'soon', attempt: 2 })],
          / BAD_COMMIT 2 retry delay/,
        ],
        [[...done, ...op('retry', { error: '{}', delayMs: 5, attempt: 0 })], / BAD_COMMIT 2 retry attempt/],
        [[...done, ...op('done', { output: '1', version: 0 })], / BAD_COMMIT 2 version/],
        [[...done, ...op('checkpoint', { ...working, inboxConsumed: -1 })], / BAD_COMMIT 2 inbox position/],
        [[...done, ...op('park', { wakeAt: 5 })], / BAD_COMMIT 2 park without snapshot/],
        [[...done, ...op('park', { wakeAt: 1.5, snapshot: '{}' })], / BAD_COMMIT 2 wake time/],
        // The compact forms: checked as the general ones are; a set of shared values named
        // must have been sent by an op of its letter before.
        [[...done, 'C', 'a', a!.token, ''], / BAD_COMMIT 2 missing values/],
        [[...done, 'C', '', a!.token, '', '', 'working', '', '', '', 0], / BAD_COMMIT 2 missing values/],
        [[...done, 'C', 'a', a!.token, '', '', 'working', '', '', ''], / BAD_COMMIT 2 missing values/],
        [
          [...done, 'C', 'a', a!.token, '', '', 'working', '', '', '', 'x'],
          / BAD_COMMIT 2 log is not a count/,
        ],
        [
          [...done, 'C', 'a', a!.token, '', '', 'working', '', '', '', 2, '{}'],
          / BAD_COMMIT 2 log is not a count/,
        ],
        [[...done, 'C', 'a', a!.token, '', '', 'done', '', '', '', 0], / BAD_COMMIT 2 checkpoint status/],
        [[...done, 'C', 'a', a!.token, '', '', 'working', '', '', -1, 0], / BAD_COMMIT 2 inbox position/],
        [[...done, 'C', 'a', a!.token, '', '', 'working', '', '', 'x', 0], / BAD_COMMIT 2 inbox position/],
        [[...done, 'S', 'a', a!.token, '', '', '', '"s"', 0], / BAD_COMMIT 2 output missing/],
        [[...done, 'S', 'a', a!.token, '1', '', '', '"s"'], / BAD_COMMIT 2 missing values/],
        [[...done, 'C', 'a', a!.token, '', 1], / BAD_COMMIT 2 shared values/],
        [
          [...done, 'S', 'a', a!.token, '1', '', '', '"s"', 0, 'C', 'a', a!.token, '', 1],
          / BAD_COMMIT 3 shared values/,
        ],
        [
          [...done, 'S', 'a', a!.token, '1', '', '', '"s"', 0, 'S', 'a', a!.token, '', 1],
          / BAD_COMMIT 3 output missing/,
        ],
        // A run: a known letter, a count of ops, its set, each op's id and (a done's) output.
        [[...done, COMMIT_COMPACT_RUN, 'X', 1, '', 'working', '', '', '', 0], / BAD_COMMIT 2 unknown kind X/],
        [[...done, COMMIT_COMPACT_RUN, 'C', 0, '', 'working', '', '', '', 0], / BAD_COMMIT 2 not a count/],
        [[...done, COMMIT_COMPACT_RUN, 'C', 'x', '', 'working', '', '', '', 0], / BAD_COMMIT 2 not a count/],
        [[...done, COMMIT_COMPACT_RUN, 'C', 1, 1], / BAD_COMMIT 2 shared values/],
        [
          [...done, COMMIT_COMPACT_RUN, 'C', 1, '', 'done', '', '', '', 0, 'a', 't', ''],
          / BAD_COMMIT 2 checkpoint status/,
        ],
        [
          [...done, COMMIT_COMPACT_RUN, 'C', 2, '', 'working', '', '', '', 0, 'a', 't', ''],
          / BAD_COMMIT 2 missing values/,
        ],
        [
          [...done, COMMIT_COMPACT_RUN, 'C', 2, '', 'working', '', '', '', 0, 'a', 't', '', '', 't', ''],
          / BAD_COMMIT 3 missing values/,
        ],
        [
          [...done, COMMIT_COMPACT_RUN, 'S', 2, '', '', '"s"', 0, 'a', a!.token, '1', 'a', 't', ''],
          / BAD_COMMIT 3 output missing/,
        ],
        // A value left over after the last op is read as an op, and refused as one.
        [[...done, 'done'], / BAD_COMMIT 2 missing values/],
      ];
      for (const [ops, why] of cases) await assert.rejects(commitRaw(ops), why, String(why));
      assert.equal((await h.store.getJob('a'))!.status, 'working', 'the readable op before was not applied');
      // Every op written: the reply counts them (lua/commit-12.lua).
      assert.equal(await commitRaw(done).then((r) => (r as unknown[])[0]), 1);
      assert.equal((await h.store.getJob('a'))!.status, 'done');
    });
  });
});
