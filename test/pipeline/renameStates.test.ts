// renameStates (the helper a migrate uses to rename states): renames in `value` and in
// `historyValue` (history state ids and the ids they remember), leaves everything else alone, and
// refuses a rename that moves a state to another parent.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renameStates } from '../../src/index.js';

describe('renameStates', () => {
  const snapshot = {
    status: 'active',
    value: { work: { review: 'two' }, side: 'idle' },
    historyValue: {
      'flow.work.hist': [{ id: 'flow.work.review.two' }],
      'flow.work.review.hist': [{ id: 'flow.work.review.one' }],
      'flow.other.hist': [{ id: 'flow.other.review' }],
    },
    context: { review: 'kept' },
    children: {},
  };

  it('renames a nested state in the value and in every history id under it, and nothing else', () => {
    const out = renameStates(snapshot, { 'work.review': 'work.checking' });
    assert.deepEqual(out, {
      ...snapshot,
      value: { work: { checking: 'two' }, side: 'idle' },
      historyValue: {
        'flow.work.hist': [{ id: 'flow.work.checking.two' }],
        'flow.work.checking.hist': [{ id: 'flow.work.checking.one' }],
        'flow.other.hist': [{ id: 'flow.other.review' }],
      },
    });
    assert.equal(snapshot.value.work.review, 'two', 'the stored snapshot is not changed in place');
  });

  it('renames a top-level state held as a string value', () => {
    const out = renameStates({ value: 'cooling', historyValue: {} }, { cooling: 'waiting' });
    assert.deepEqual(out, { value: 'waiting', historyValue: {} });
  });

  it('refuses a rename that moves a state to another parent', () => {
    assert.throws(() => renameStates(snapshot, { 'work.review': 'other.review' }), /in place/);
  });
});
