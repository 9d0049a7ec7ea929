// IdTable (src/supervisor/IdTable.ts) answers as the ReadonlyMap its users read it as, whatever
// the id: one that reads as an array index, or names an Object.prototype member.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdTable } from '../../src/supervisor/IdTable.js';

test('an IdTable sets, gets, deletes and counts any id', () => {
  const t = new IdTable<number>();
  const ids = ['01M8J9P1HBZ6160HM2X0000001', '42', '__proto__', 'constructor', 'toString', ''];
  ids.forEach((id, i) => t.set(id, i));
  assert.equal(t.size, ids.length);
  ids.forEach((id, i) => {
    assert.equal(t.get(id), i);
    assert.equal(t.has(id), true);
  });
  assert.equal(t.get('hasOwnProperty'), undefined);
  assert.equal(t.has('hasOwnProperty'), false);
  t.set('42', 7); // again: replaced, not counted twice
  assert.equal(t.size, ids.length);
  assert.equal(t.delete('__proto__'), true);
  assert.equal(t.delete('__proto__'), false);
  assert.equal(t.size, ids.length - 1);
  assert.equal(t.get('__proto__'), undefined);
});

test('an IdTable lists what it holds, and clear() empties it', () => {
  const t = new IdTable<string>();
  t.set('b', 'B').set('a', 'A').set('7', 'seven');
  const expected = new Map([
    ['7', 'seven'],
    ['b', 'B'],
    ['a', 'A'],
  ]);
  assert.deepEqual(new Map(t), expected);
  assert.deepEqual(new Map(t.entries()), expected);
  assert.deepEqual([...t.keys()].sort(), ['7', 'a', 'b']);
  assert.deepEqual([...t.values()].sort(), ['A', 'B', 'seven']);
  const seen: string[] = [];
  t.forEach((v, id, table) => {
    assert.equal(table, t);
    seen.push(`${id}=${v}`);
  });
  assert.deepEqual(seen.sort(), ['7=seven', 'a=A', 'b=B']);
  t.clear();
  assert.equal(t.size, 0);
  assert.equal(t.get('a'), undefined);
  assert.deepEqual([...t], []);
  t.set('a', 'again');
  assert.equal(t.size, 1);
});

test('an IdTable walked while its entries go skips those deleted or cleared before their turn, as a Map does', () => {
  const t = new IdTable<string>();
  for (const id of ['a', 'b', 'c', 'd']) t.set(id, id.toUpperCase());
  const seen: string[] = [];
  for (const v of t.values()) {
    seen.push(v);
    if (v === 'A') t.delete('b');
    if (v === 'C') t.clear();
  }
  assert.deepEqual(seen, ['A', 'C']);
  t.set('x', 'X').set('y', 'Y');
  const ids: string[] = [];
  t.forEach((_v, id) => {
    ids.push(id);
    t.delete('y');
  });
  assert.deepEqual(ids, ['x']);
  t.set('p', 'P').set('q', 'Q');
  const entries: string[] = [];
  for (const [id] of t.entries()) {
    entries.push(id);
    t.delete('q');
  }
  assert.deepEqual(entries, ['x', 'p']);
});
