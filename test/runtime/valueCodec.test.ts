// The value codec (src/store/valueCodec.ts), value by value: plain JSON is stored as plain
// JSON, byte for byte what JSON.stringify writes; what JSON cannot carry comes back exactly; what
// the codec cannot bring back is refused with its path; records from before the codec read as
// they did.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { decodeValue, encodeValue, wireValue } from '../../src/store/valueCodec.js';
import { UnserializableSnapshotError } from '../../src/errors.js';

const roundTrip = (v: unknown) => decodeValue(encodeValue(v, 'value'));

describe('value codec', () => {
  it('stores plain JSON exactly as JSON.stringify does, with no envelope', () => {
    for (const v of [null, 0, 1.5, 'x', true, [], {}, [1, 'a', null], { a: { b: [1, { c: 'd' }] }, n: -3 }]) {
      assert.equal(encodeValue(v, 'value'), JSON.stringify(v));
      assert.deepEqual(roundTrip(v), v);
    }
    // An undefined property is left out, as JSON leaves it out; undefined alone stores null.
    assert.equal(encodeValue({ a: 1, b: undefined }, 'value'), '{"a":1}');
    assert.equal(encodeValue(undefined, 'value'), 'null');
  });

  it('brings back exactly what plain JSON would change', () => {
    const cases: unknown[] = [
      new Date(Date.UTC(2026, 0, 2)),
      new Map<unknown, unknown>([
        ['k', new Set([1])],
        [1, new Date(0)],
      ]),
      new Set(['a', 'b']),
      12345678901234567890n,
      /a+b/gi,
      new URL('https://example.com/x?y=1'),
      new Uint8Array([1, 2, 3]),
      [1, undefined, 3],
      NaN,
      -Infinity,
      -0,
      { nested: { at: new Date(5), list: [new Set([new Date(6)])] } },
    ];
    for (const v of cases) {
      const text = encodeValue(v, 'value');
      assert.match(text, /^\{"\$codec":"superjson"/, String(v));
      assert.ok(
        isDeepStrictEqual(decodeValue(text), v),
        `${String(v)} came back as ${String(decodeValue(text))}`,
      );
    }
  });

  it('brings an Error back as an Error with its name, message and code', () => {
    const err = Object.assign(new TypeError('bad'), { code: 'E_BAD' });
    const back = roundTrip({ err }) as { err: Error & { code?: string } };
    assert.ok(back.err instanceof Error);
    assert.deepEqual([back.err.name, back.err.message, back.err.code], ['TypeError', 'bad', 'E_BAD']);
  });

  it('refuses a class instance, a function, a symbol, a cycle and an invalid Date, naming the path', () => {
    class Money {
      cents = 1;
    }
    class List extends Array<number> {}
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: [unknown, RegExp][] = [
      [{ order: { price: new Money() } }, /a class instance \(Money\) at context\.order\.price$/],
      [{ m: new Map([['k', new Money()]]) }, /a class instance \(Money\) at context\.m\.get\("k"\)$/],
      [{ s: [new List()] }, /a class instance \(List\) at context\.s\[0\]$/],
      [{ f: () => 1 }, /a function at context\.f$/],
      [{ y: Symbol('s') }, /a symbol at context\.y$/],
      [{ c: cyclic }, /a circular reference at context\.c\.self$/],
      [{ d: new Date(NaN) }, /an invalid Date at context\.d$/],
    ];
    for (const [v, message] of cases) {
      assert.throws(
        () => encodeValue(v, 'snapshot', 'context'),
        (err: unknown) =>
          err instanceof UnserializableSnapshotError &&
          err.code === 'UNSERIALIZABLE_SNAPSHOT' &&
          err.nonRetryable &&
          message.test(err.message),
      );
    }
  });

  it('wraps a plain object that has the marker key, so it is never read as an envelope', () => {
    const v = { $codec: 'superjson', json: '2020-01-01T00:00:00.000Z', meta: { values: ['Date'] } };
    assert.deepEqual(roundTrip(v), v);
    assert.deepEqual(wireValue(v), { $codec: 'superjson', json: v });
  });

  it('reads a value stored before the codec (no envelope) as it was', () => {
    assert.deepEqual(decodeValue('{"startedAt":"2026-01-01T00:00:00.000Z","seen":{}}'), {
      startedAt: '2026-01-01T00:00:00.000Z',
      seen: {},
    });
  });
});
