// Redis only: counts the log fields in the job hash.
// The states one write passed through are stored as one audit entry (a log field costs Redis a
// listpack entry per job), and read back as one entry per state, in order, at the same time.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compactStates } from '../../src/store/redis/encodeOps.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

const state = (s: string) => `{"type":"state","state":"${s}"}`;

describe('state entries of one write', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h?.close());

  it('compacts runs of state entries and leaves everything else as it is', () => {
    const other = '{"type":"event","event":"GO"}';
    assert.deepEqual(compactStates([state('a')]), [state('a')]);
    assert.deepEqual(compactStates([other, state('a'), state('b'), state('c'), other, state('d')]), [
      other,
      '{"type":"state","state":"a","then":["b","c"]}',
      other,
      state('d'),
    ]);
  });

  it('stores one log field for three states, and the audit log lists all three in order', async () => {
    h = new Harness(redis);
    const id = '01JSTATES0000000000000000A';
    await h.store.enqueue('default', [
      { id, machine: 'p', version: 1, input: 'null', band: 2, delayMs: 0, maxAttempts: 1 },
    ]);
    const token = (await h.claimAs())[0]!.token;
    await h.store.commit('default', [
      {
        kind: 'checkpoint',
        id,
        token,
        status: 'working',
        snapshot: '{}',
        log: [state('a'), state('b'), state('c')],
      },
    ]);
    const fields = Object.keys(await h.raw.hgetall(h.key(`job:${id}`))).filter((f) => /^l\d+$/.test(f));
    // enqueued and claimed (written out by the first explicit entry), then the one state entry
    assert.equal(fields.length, 3, fields.join(','));
    const log = await h.store.getLog(id);
    const states = log.filter((e) => e.type === 'state');
    assert.deepEqual(
      states.map((e) => e.state),
      ['a', 'b', 'c'],
    );
    assert.equal(new Set(states.map((e) => e.at)).size, 1);
    assert.equal(
      states.some((e) => 'then' in e),
      false,
    );
  });
});
