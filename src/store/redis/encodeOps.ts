// Encodes a commit's ops for lua/commit-12.lua as flat ARGV values, by name without sending the
// names: per op its kind, id and token, then one value per field of its kind in the order of
// COMMIT_OP_FIELDS (commitOpFields.ts), '' when not set, the log (last) as a count then its
// entries. The Lua rebuilds each op under CommitOp's own names from the same generated table
// (lua/include/readCommitOps.lua), so it reads op.output, op.delayMs ... and a field added to
// CommitOp is added to the table, not placed by hand at both ends. The plain done, the op most
// jobs end with, travels as 4 values under its own kind, COMMIT_PLAIN_DONE, id, token, output,
// and the Lua takes it without making a table of it (include/lcDonePlain.lua). A RUN of them (ops
// next to each other) travels as COMMIT_PLAIN_DONE, '', its length, then their output and per done
// its id and token when they share it (no-op jobs: 2 values a done), else '' and per done its
// id, token and output (include/readCommitOps.lua): each value costs Redis ~0.8k instructions. A
// checkpoint, and any other done, with no version travels in its compact form (COMMIT_COMPACT):
// its letter, id, token, its own values, then the values it shares with other ops of the call, or
// the number of the set of them an op before it sent; the Lua applies it without a table of the
// op in the common case (include/lcCompactOp.lua).
//
// Why flat values, not one JSON array of named records (issue 22; bench/probes/commitOps.ts,
// redis-server instructions under callgrind, JSON / former positional f1..f5 / these values):
// a claim + plain done per job 189k / 182k / 182k; a fenced-off op (read and checked, not
// written) 39k / 32k / 32k as a plain done, 73k / 62k / 65k as a checkpoint or a done with a
// state (the record per op that names cost; a second pass over its fields cost 6k more).

import type { CommitOp } from '../types.js';
import {
  COMMIT_COMPACT,
  COMMIT_COMPACT_RUN,
  COMMIT_OP_FIELDS,
  COMMIT_OP_TYPES,
  COMMIT_PLAIN_DONE,
} from './commitOpFields.js';

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
const TYPES: Readonly<Record<string, string>> = COMMIT_OP_TYPES;
/** A compact form's letter and fields, by the kind it carries. */
const COMPACT_OF = new Map(
  Object.entries(COMMIT_COMPACT).map(([letter, c]) => [c.kind as string, { letter, ...c }]),
);

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

/** Appends the values of `fields` of `op` to `into`: '' when not set, the log its count then its entries. */
function pushFields(op: CommitOp, fields: readonly string[], into: (string | number)[]): void {
  const values = op as unknown as Record<string, unknown>;
  for (const f of fields) {
    const v = values[f];
    if (TYPES[f] === 'entries') {
      // Not a list (a caller that bypassed the types): '' for its count, which the Lua refuses.
      if (!Array.isArray(v)) {
        into.push('');
        continue;
      }
      const entries = compactStates(v as string[]);
      into.push(entries.length);
      for (const e of entries) into.push(e);
    } else if (v === undefined || v === null) into.push('');
    // A delay is whole milliseconds, and a negative one is none (NaN stays NaN: refused).
    else if (f === 'delayMs') into.push(Math.max(0, Math.round(v as number)));
    else into.push(v as string | number);
  }
}

/**
 * Appends the run of plain dones that starts at ops[from] to `into`; returns the index after it.
 * As a run when that sends fewer values: 3 + 2k shared (k >= 2), 3 + 3k each its own (k >= 4),
 * else 4 a done.
 */
function encodePlainRun(ops: readonly CommitOp[], from: number, into: (string | number)[]): number {
  const run: Extract<CommitOp, { kind: 'done' }>[] = [];
  for (let i = from; i < ops.length; i++) {
    const op = ops[i]!;
    if (!isPlainDone(op)) break;
    run.push(op);
  }
  const output = run[0]!.output;
  // An empty output (refused by the Lua as 'output missing') goes alone: '' marks a run whose
  // dones carry their own.
  if (run.some((d) => !d.output)) run.length = 1;
  if (run.length >= 2 && run.every((d) => d.output === output)) {
    into.push(COMMIT_PLAIN_DONE, '', run.length, output);
    for (const d of run) into.push(d.id, d.token);
  } else if (run.length >= 4) {
    into.push(COMMIT_PLAIN_DONE, '', run.length, '');
    for (const d of run) into.push(d.id, d.token, d.output);
  } else for (const d of run) into.push(COMMIT_PLAIN_DONE, d.id, d.token, d.output);
  return from + run.length;
}

/**
 * Appends `ops` to `into` (the script's ARGV after its own 9) as commit-12.lua reads them:
 * COMMIT_PLAIN_DONE, id, token, output for a plain done (or a run of them, see encodePlainRun); a checkpoint or done with no version in
 * its compact form: its letter (COMMIT_COMPACT), id, token, its own values, then '' and its
 * shared values, or the number of the set an op of the same letter sent before it in this call;
 * else kind, id, token, a value per field of COMMIT_OP_FIELDS[kind]. A field not set is '', the
 * log its count then its entries.
 */
export function encodeOps(ops: readonly CommitOp[], into: (string | number)[] = []): (string | number)[] {
  // The sets of shared values sent so far in this call (the op that defined each, by number - 1).
  const sets: CommitOp[] = [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (isPlainDone(op)) {
      i = encodePlainRun(ops, i, into) - 1;
      continue;
    }
    const version = (op as { version?: unknown }).version;
    const compact = version == null ? COMPACT_OF.get(op.kind) : undefined;
    if (!compact) {
      into.push(op.kind, op.id, op.token);
      // An unknown kind (a caller that bypassed the types) goes without fields: the Lua refuses it.
      pushFields(op, COMMIT_OP_FIELDS[op.kind] ?? [], into);
      continue;
    }
    // A RUN (COMMIT_COMPACT_RUN): this op and those right after it that share its values, when
    // there are 3 or more (2 send as many values either way).
    let end = i + 1;
    while (end < ops.length && sameShared(op, ops[end]!, compact.shared)) end++;
    const run = end - i >= 3;
    if (run) into.push(COMMIT_COMPACT_RUN, compact.letter, end - i);
    else {
      into.push(compact.letter, op.id, op.token);
      pushFields(op, compact.own, into);
    }
    const set = sharedSet(sets, op, compact.shared);
    if (set > 0) into.push(set);
    else {
      sets.push(op);
      into.push('');
      pushFields(op, compact.shared, into);
    }
    if (!run) continue;
    for (let r = i; r < end; r++) {
      const o = ops[r]!;
      into.push(o.id, o.token);
      pushFields(o, compact.own, into);
    }
    i = end - 1;
  }
  return into;
}

/**
 * How many sets back a compact op looks for one whose shared values are its own: the ops of a
 * call in step share the last one or few (a commit of 100 jobs' checkpoints: one set), and a
 * call of ops that share nothing (contexts that differ per job) must not cost a scan of all.
 */
const SET_LOOKBACK = 8;

/**
 * The number (from 1) of the set of shared values an op of `sets` defined that `op`'s values of
 * `fields` equal; 0 for none. Compared field by field, the log entry by entry as queued (equal
 * lists compact alike): no text made per op to look it up (a join of the values and a Map of
 * them cost the worker ~1 us an op, in a profile of workload 6b).
 */
function sharedSet(sets: readonly CommitOp[], op: CommitOp, fields: readonly string[]): number {
  const stop = Math.max(0, sets.length - SET_LOOKBACK);
  for (let s = sets.length - 1; s >= stop; s--) if (sameShared(sets[s]!, op, fields)) return s + 1;
  return 0;
}

/**
 * Whether `other` travels in `op`'s compact form (its kind, no version) with the same values of
 * `fields` (its shared ones) as `op`.
 */
function sameShared(op: CommitOp, other: CommitOp, fields: readonly string[]): boolean {
  if (other.kind !== op.kind || (other as { version?: unknown }).version != null) return false;
  const mine = op as unknown as Record<string, unknown>;
  const theirs = other as unknown as Record<string, unknown>;
  for (const f of fields) {
    const a = mine[f];
    const b = theirs[f];
    if (a === b) continue;
    if (TYPES[f] === 'entries') {
      if (!sameEntries(a, b)) return false;
      // Unset and '' send the same value ('').
    } else if (!((a === undefined || a === null || a === '') && (b === undefined || b === null || b === '')))
      return false;
  }
  return true;
}

/** Two logs of the same entries (both lists: a log that is not one is never shared). */
function sameEntries(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
