// Encodes a commit's ops for lua/commit-12.lua: ONE JSON array of named op records, decoded there
// once (cjson.decode), each op under CommitOp's own field names (commitOpFields.ts), so the Lua
// reads op.kind, op.output, op.delayMs ... A plain done, the op most jobs end with, travels as
// { kind, id, token, output } alone: its log (the one {"type":"done"} entry) is left out, which
// is what tells the Lua it may take the short path (include/lcDonePlain.lua).
//
// Why one JSON array (measured, issue 22): against the former positional ARGV (9 values per op,
// 4 per plain done) it costs Redis about half a microsecond more per plain done (a Lua table
// per op), well within the bench's 5%; one op JSON per ARGV value cost more (a decode per op),
// and MessagePack (cmsgpack.unpack) a little less in Redis but a hand-written encoder here.

import type { CommitOp } from '../types.js';
import { COMMIT_OP_FIELDS } from './commitOpFields.js';

const STATE_PREFIX = '{"type":"state","state":';
/** A state entry with more than its state (the context it carries, src/pipeline/contextLog.ts). */
const STATE_ENTRY = '{"type":"state",';

/**
 * A run of `state` entries in one write (the states a pipeline passed through between two
 * writes) is stored as ONE entry, `{"type":"state","state":A,"then":[B,C]}`: a log field each
 * costs Redis a listpack entry per job. decodeEvents.ts expands it back into one entry per state,
 * at the same time, so the audit log reads the same. The first may carry more (its context
 * changes); those after it only when they are bare states (their context did not change).
 */
export function compactStates(log: readonly string[]): readonly string[] {
  let out: string[] | undefined;
  for (let i = 0; i < log.length; i++) {
    const e = log[i]!;
    const next = log[i + 1];
    if (!e.startsWith(STATE_ENTRY) || next === undefined || !next.startsWith(STATE_PREFIX)) {
      out?.push(e);
      continue;
    }
    out ??= log.slice(0, i);
    const then: string[] = [];
    let j = i + 1;
    for (; j < log.length && log[j]!.startsWith(STATE_PREFIX); j++)
      then.push(log[j]!.slice(STATE_PREFIX.length, -1));
    out.push(`${e.slice(0, -1)},"then":[${then.join(',')}]}`);
    i = j - 1;
  }
  return out ?? log;
}

const DONE_ENTRY = '{"type":"done"}';

/** A done with no snapshot, state or version whose log is exactly {"type":"done"}. */
function isPlainDone(op: CommitOp): op is Extract<CommitOp, { kind: 'done' }> {
  return (
    op.kind === 'done' &&
    !op.snapshot &&
    !op.state &&
    op.version === undefined &&
    op.log.length === 1 &&
    op.log[0] === DONE_ENTRY
  );
}

/** An op as its named record: kind, id, token, then the fields its kind carries that are set. */
function namedRecord(op: CommitOp): Record<string, unknown> {
  const rec: Record<string, unknown> = { kind: op.kind, id: op.id, token: op.token };
  // An unknown kind (a caller that bypassed the types) goes as it is: the Lua refuses it.
  const fields: readonly string[] = COMMIT_OP_FIELDS[op.kind] ?? [];
  const values = op as unknown as Record<string, unknown>;
  for (const f of fields) {
    const v = values[f];
    if (v !== undefined && v !== null) rec[f] = v;
  }
  if (op.kind === 'retry') rec.delayMs = Math.max(0, Math.round(op.delayMs));
  rec.log = compactStates(op.log);
  return rec;
}

/** The ARGV value lua/commit-12.lua reads its ops from: a JSON array of named op records. */
export function encodeOps(ops: readonly CommitOp[]): string {
  const recs: unknown[] = new Array(ops.length);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    recs[i] = isPlainDone(op)
      ? { kind: 'done', id: op.id, token: op.token, output: op.output }
      : namedRecord(op);
  }
  return JSON.stringify(recs);
}
