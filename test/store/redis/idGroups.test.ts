// THE IDS GROUPED (src/store/redis/idGroups.ts): a combined `enqueued` entry's ids, ids next to each
// other that differ only in their last character written as their 25 common characters once: read
// back exactly, in order, whatever the runs; an id the form cannot hold refuses the whole list.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { groupIds, ungroupIds } from '../../../src/store/redis/idGroups.js';
import { newJobId } from '../../../src/client/buildNewJob.js';

const head = 'A'.repeat(25);

describe('the ids grouped', () => {
  it('groups ids that differ only in their last character, and reads them back in order', () => {
    const ids = [`${head}0`, `${head}1`, `${head}Z`, `${'B'.repeat(25)}0`, `${head}2`, `${head}2`];
    const text = groupIds(ids)!;
    assert.equal(text, `${head}01Z,${'B'.repeat(25)}0,${head}22`);
    assert.deepEqual(ungroupIds(text), ids);
  });

  it("the Client's monotonic ids of a batch take a few characters each", () => {
    const ids = Array.from({ length: 1000 }, () => newJobId());
    const text = groupIds(ids)!;
    assert.deepEqual(ungroupIds(text), ids);
    assert.ok(text.length < ids.length * 5, `${text.length} characters for 1,000 ids`);
  });

  it('refuses a list with an id of another length or with a character it cannot hold', () => {
    for (const bad of [`${head}`, `${head}00`, `${head},`, `${head}é`, `${head}-`, ''])
      assert.equal(groupIds([`${head}0`, bad]), null, JSON.stringify(bad));
  });

  it('one id alone is itself', () => {
    assert.equal(groupIds([`${head}7`]), `${head}7`);
    assert.deepEqual(ungroupIds(`${head}7`), [`${head}7`]);
  });
});
