// The pump's line of queued writes (CommitPump.ts): which of them the next commit sends, and how
// a failed batch goes back in line. Two of the pump's invariants are kept here: ORDER (a failed
// batch goes back first, in the order its writes were queued, minus superseded checkpoints) and
// POISON (a batch being searched for the write a script error came from is sent one suspect at a
// time).

import type { CommitOp } from '../store/types.js';

export interface PendingWrite {
  op: CommitOp;
  /** Order in which writes were queued: a job's later write supersedes its earlier checkpoint. */
  seq: number;
  /** Sent alone, to find which write of a failed batch Redis refuses. */
  isolate?: boolean;
  resolve: (written: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Splits the line into what the next commit sends and what stays. `isolating`: the batch is one
 * suspect of a script error (then the commit claims nothing).
 */
export function nextBatch(pending: PendingWrite[]): {
  batch: PendingWrite[];
  rest: PendingWrite[];
  isolating: boolean;
} {
  if (pending[0]?.isolate) {
    // Finding the write a script error came from: one suspect per commit, and no claim
    // (the suspect's commit fails again: jobs it claimed would come back to nobody).
    const batch = pending.slice(0, 1);
    batch[0]!.isolate = false;
    return { batch, rest: pending.slice(1), isolating: true };
  }
  const cut = pending.findIndex((p) => p.isolate);
  if (cut > 0) return { batch: pending.slice(0, cut), rest: pending.slice(cut), isolating: false };
  return { batch: pending, rest: [], isolating: false };
}

/**
 * A failed batch's writes minus the checkpoints that a later write of the same job, sent
 * (`lastSent`: each job's last write sent), superseded: such a checkpoint MUST NOT land after
 * that write (the stored snapshot and inbox position would go backwards). It is resolved as
 * written, not sent again.
 */
export function withoutSuperseded(
  batch: PendingWrite[],
  lastSent: ReadonlyMap<string, number>,
): PendingWrite[] {
  return batch.filter((p) => {
    if (p.op.kind === 'checkpoint' && (lastSent.get(p.op.id) ?? 0) > p.seq) {
      p.resolve(true);
      return false;
    }
    return true;
  });
}

/** `writes` of a failed batch put back in line ahead of `pending`, in the order they were first queued. */
export function requeued(writes: PendingWrite[], pending: PendingWrite[]): PendingWrite[] {
  if (writes.length === 0) return pending;
  const merged = writes.concat(pending);
  // Another failed batch already back in line was sent after this one: restore queue order.
  if (pending.length > 0 && pending[0]!.seq < writes[writes.length - 1]!.seq)
    merged.sort((a, b) => a.seq - b.seq);
  return merged;
}
