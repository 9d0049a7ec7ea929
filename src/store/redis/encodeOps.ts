// Flattens commit ops into the ARGV layout that lua/commit-12.lua reads: 9 values per op, or 4
// ('D', id, token, output) for a plain done, the op most jobs end with. An op's `version` (its
// snapshot's machine version after a migrate) travels in the kind: 'park@2'.

import type { CommitOp } from '../types.js';

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
    args.push(kind, op.id, op.token, f1, f2, f3, f4, f5, op.log.join('\n'));
  }
}
