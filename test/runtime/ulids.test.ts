// The ids every job, event and watcher gets (src/runtime/ulids.ts): ULIDs whose randomness comes
// from a pool of crypto random bytes. They must stay what ulid's own source gives: valid, unique,
// ordered by time, monotonic within a millisecond, and random in every character of their
// random part, across the pool's refills.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeTime, isValid } from 'ulid';
import { pooledRandom, ulidFactory } from '../../src/runtime/ulids.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('ulidFactory: ULIDs on pooled crypto randomness', () => {
  it('makes valid ids, unique and monotonic within a millisecond, with the time they were made', () => {
    const ulid = ulidFactory();
    const at = Date.now();
    const ids = Array.from({ length: 20_000 }, () => ulid(at));
    assert.ok(ids.every((id) => isValid(id)));
    assert.equal(new Set(ids).size, ids.length);
    for (let i = 1; i < ids.length; i++)
      assert.ok(ids[i - 1]! < ids[i]!, `id ${i} sorts after the one before`);
    assert.equal(decodeTime(ids[0]!), at);
    const later = ulid(at + 1);
    assert.equal(decodeTime(later), at + 1);
    assert.ok(later > ids.at(-1)!);
  });

  it('draws every character of a random part evenly, across many refills of the pool', () => {
    const ulid = ulidFactory();
    // A new millisecond each: 16 fresh random characters an id, 20 pool refills in all.
    const counts = Array.from({ length: 16 }, () => new Array<number>(32).fill(0));
    const n = 5_120;
    for (let i = 0; i < n; i++) {
      const random = ulid(1_700_000_000_000 + i).slice(10);
      for (let c = 0; c < 16; c++) counts[c]![CROCKFORD.indexOf(random[c]!)]!++;
    }
    // Each of the 32 letters is expected n / 32 = 160 times at each position; a chi-square over
    // all 16 x 31 degrees of freedom stays near 496 for uniform draws (a fixed or short-cycled
    // source lands in the thousands).
    let chi = 0;
    for (const position of counts) for (const k of position) chi += (k - n / 32) ** 2 / (n / 32);
    assert.ok(chi < 700, `chi-square ${chi.toFixed(0)} over 496 degrees of freedom`);
  });

  it('returns fractions in [0, 1) in steps of 1/256, as ulid reads them', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 50_000; i++) {
      const f = pooledRandom();
      assert.ok(f >= 0 && f < 1 && Number.isInteger(f * 256));
      seen.add(f);
    }
    assert.equal(seen.size, 256);
  });
});
