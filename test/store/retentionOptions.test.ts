// Both stores take the same retention options with one set of defaults and checks
// (src/store/retention.ts): a wrong one is refused when the store is made, naming the store and
// the option, before any connection is opened or file read.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore, RedisStore } from '../../src/index.js';

const makers = {
  RedisStore: (o: object) => new RedisStore({ url: 'redis://127.0.0.1:1', ...o }),
  MemoryStore: (o: object) => new MemoryStore(o),
};

describe('retention options', () => {
  for (const [name, make] of Object.entries(makers)) {
    for (const option of ['finishedTtlMs', 'failedTtlMs', 'idempotencyTtlMs', 'eventsMaxLen']) {
      it(`${name} refuses ${option}: 0, naming it`, () => {
        assert.throws(() => make({ [option]: 0 }), {
          name: 'TypeError',
          message: `${name}: ${option} must be a number > 0 (got 0)`,
        });
      });
    }
    it(`${name} refuses deadLetterMax: 1.5`, () => {
      assert.throws(() => make({ deadLetterMax: 1.5 }), { name: 'TypeError', message: /deadLetterMax/ });
    });
  }
});
