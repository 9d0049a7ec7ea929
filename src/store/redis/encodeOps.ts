// Flattens commit ops into the ARGV layout that lua/commit-12.lua reads: 9 values per op, or 4
// ('D', id, token, output) for a plain done, the op most jobs end with. An op's `version` (its
// snapshot's machine version after a migrate) travels in the kind: 'park@2'.

import type { CommitOp } from '../types.js';

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

export function encodeOps(ops: readonly CommitOp[], args: (string | number)[]): void {
  for (const op of ops) {
    if (
      op.kind === 'done' &&
      !op.snapshot &&
      !op.state &&
      op.version === undefined &&
      op.log.length === 1 &&
      op.log[0] === DONE_ENTRY
    ) {
      args.push('D', op.id, op.token, op.output);
      continue;
    }
    let f1: string | number = '';
    let f2: string | number = '';
    let f3: string | number = '';
    let f4: string | number = '';
    let f5: string | number = '';
    switch (op.kind) {
      case 'checkpoint':
        f1 = op.status;
        f2 = op.snapshot ?? '';
        f3 = op.state ?? '';
        f4 = op.progress ?? '';
        f5 = op.inboxConsumed ?? '';
        break;
      case 'done':
        f1 = op.output;
        f2 = op.snapshot;
        f3 = op.state ?? '';
        break;
      case 'fail':
        f1 = op.error;
        f2 = op.snapshot ?? '';
        f3 = op.state ?? '';
        f4 = op.resume ?? '';
        break;
      case 'retry':
        f1 = op.error;
        f2 = Math.max(0, Math.round(op.delayMs));
        f3 = op.attempt;
        f4 = op.snapshot ?? '';
        f5 = op.retryLaters ?? '';
        break;
      case 'cancelled':
        f2 = op.snapshot ?? '';
        f3 = op.state ?? '';
        break;
      case 'requeue':
        break;
      case 'park':
        f1 = op.wakeAt ?? '';
        f2 = op.snapshot;
        f3 = op.state ?? '';
        f5 = op.inboxConsumed ?? '';
        break;
      case 'broken':
        f1 = op.error;
        break;
    }
    const kind = 'version' in op && op.version !== undefined ? `${op.kind}@${op.version}` : op.kind;
    args.push(kind, op.id, op.token, f1, f2, f3, f4, f5, compactStates(op.log).join('\n'));
  }
}
