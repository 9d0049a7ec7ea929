// What a `state` entry carries of the context, and the context rebuilt from a log of them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ContextLog, ENTRY_CAP, VALUE_CAP } from '../../src/pipeline/contextLog.js';
import { contextAt } from '../../src/dashboard/contextAt.js';
import { compactStates } from '../../src/store/redis/encodeOps.js';
import { decodeLogEntry } from '../../src/store/redis/decodeEvents.js';
import type { AuditEntry } from '../../src/index.js';

/** Logs `contexts` as the states s0, s1, ... and reads them back as the store would. */
function logOf(contexts: unknown[]): AuditEntry[] {
  const log = new ContextLog();
  const texts = contexts.map((c, i) => `{"type":"state",${log.fields(c)}"state":"s${i}"}`);
  return compactStates([...texts, '{"type":"done"}']).flatMap((t, i) =>
    decodeLogEntry(`${i} ${t.startsWith('{"type":"done"}') ? 'done' : t}`),
  );
}

describe('context in the audit log', () => {
  it('carries the whole context first, then only changes and removals, nothing when unchanged', () => {
    const contexts = [
      { a: 1, b: 'x' },
      { a: 1, b: 'x' },
      { a: 2, b: 'x', c: [1] },
      { a: 2, c: [1] },
      { a: 3 },
    ];
    const log = logOf(contexts);
    assert.deepEqual(log[0]!.context, { a: 1, b: 'x' });
    assert.equal('ctx' in log[1]! || 'context' in log[1]!, false, 'nothing when unchanged');
    assert.deepEqual(log[2]!.ctx, { a: 2, c: [1] });
    assert.deepEqual(log[3]!.ctxGone, ['b']);
    // Each state's context back (the last from the record, as the job has stayed there).
    for (let i = 0; i < contexts.length - 1; i++) assert.deepEqual(contextAt(log, i, 'now'), contexts[i]);
    assert.equal(contextAt(log, contexts.length - 1, 'now'), 'now');
  });

  it('notes values too large to keep, and keeps an entry under its cap', () => {
    const big = 'y'.repeat(VALUE_CAP + 1);
    const many = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`k${i}`, 'z'.repeat(VALUE_CAP - 20)]),
    );
    const log = logOf([{ big, small: 1 }, many, { end: true }]);
    assert.match(
      String((log[0]!.context as { big: string }).big),
      /not kept in the audit log: 515 characters/,
    );
    assert.ok(JSON.stringify(log[1]).length < ENTRY_CAP + 20 * 60, 'bounded by the entry cap and the notes');
    const second = contextAt(log, 1, null) as Record<string, string>;
    assert.equal(second.k0, many.k0);
    assert.match(second.k19!, /not kept/);
  });

  it('logs a context that is not an object whole, and has none for a log without context', () => {
    const log = logOf([5, 5, [1, 2], { a: 1 }, null]);
    assert.deepEqual(
      [0, 1, 2, 3].map((i) => contextAt(log, i, 'now')),
      [5, 5, [1, 2], { a: 1 }],
    );
    const bare: AuditEntry[] = [
      { at: 1, type: 'state', state: 'a' },
      { at: 2, type: 'state', state: 'b' },
    ];
    assert.equal(contextAt(bare, 0, 'now'), undefined);
  });
});
