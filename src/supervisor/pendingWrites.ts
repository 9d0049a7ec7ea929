// The pump's line of queued writes (CommitPump.ts): which of them the next commit sends, and how
// a failed batch goes back in line. Two of the pump's invariants are kept here: ORDER (a failed
// batch goes back first, in the order its writes were queued, minus superseded checkpoints) and
// POISON (a batch being searched for the write a script error came from is sent one suspect at a
// time). And a bound: A COMMIT'S SIZE, at most MAX_BATCH writes.

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

type Checkpoint = Extract<CommitOp, { kind: 'checkpoint' }>;

/**
 * COALESCING: a job's write queued while its last write in line is a checkpoint, both unsent
 * (CommitWrites.queue), takes that checkpoint in (the one op sent for both), when that leaves
 * the job's record as the two would, one after the other in one commit (one script call, nothing
 * between them: no reader sees the record between them):
 * - a checkpoint of the same status and version: its fields, each the later one's if it sets it
 *   (the Lua writes only those set), the earlier one's else; the earlier one's log first;
 * - a done with a snapshot (a pipeline's ending), when the checkpoint sets no progress, keeps
 *   the status a `working` run was claimed with (no loading -> working move, whose cancel guard
 *   could end the job), and has the same version, and the run was claimed with no lease
 *   requeues to clear (`lr`, which a checkpoint deletes and a done keeps): the done's snapshot,
 *   state and output replace the checkpoint's; what else a checkpoint writes a done drops or
 *   never reads (`io`: dropped with an inbox, unused without; `ua`: a done does not update it,
 *   so it keeps the time of the job's last write before, as after any done).
 * Either way the job's audit log holds every entry of both, in order. What is not written: the
 * checkpoint's own entry on the queue's event stream (several settled steps already share one
 * per write). `endable`: the run may end in a done that takes its checkpoint in (claimed
 * `working`, no lease requeues).
 */
export function coalesced(before: CommitOp, op: CommitOp, endable: boolean): CommitOp | undefined {
  const version = (op as { version?: number }).version;
  if (before.kind !== 'checkpoint' || before.token !== op.token || before.version !== version)
    return undefined;
  if (op.kind === 'checkpoint') {
    if (op.status !== before.status) return undefined;
    const merged: Checkpoint = { ...op, log: before.log.concat(op.log) };
    if (op.snapshot === undefined && before.snapshot !== undefined) merged.snapshot = before.snapshot;
    if (op.state === undefined && before.state !== undefined) merged.state = before.state;
    if (op.progress === undefined && before.progress !== undefined) merged.progress = before.progress;
    if (op.inboxConsumed === undefined && before.inboxConsumed !== undefined)
      merged.inboxConsumed = before.inboxConsumed;
    return merged;
  }
  if (
    op.kind === 'done' &&
    endable &&
    op.snapshot &&
    (op.state !== undefined || before.state === undefined) &&
    before.status === 'working' &&
    before.progress === undefined
  )
    return { ...op, log: before.log.concat(op.log) };
  return undefined;
}

/**
 * A COMMIT'S SIZE: the most writes one commit sends; the rest go in the next ones, in line. A
 * commit is one script call, and Redis serves nobody else while it runs: 25k held jobs whose
 * timers fire in one instant (the early lease) queued 25k dones, one call of ~1.7 G instructions
 * (~66k a done under callgrind), the other workers' commits and every enqueue waiting it out,
 * and each of the 25k jobs done only when all were. 1,000 dones are a call of ~25-70 ms.
 */
export const MAX_BATCH = 1000;

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
  const end = Math.min(cut > 0 ? cut : pending.length, MAX_BATCH);
  if (end < pending.length)
    return { batch: pending.slice(0, end), rest: pending.slice(end), isolating: false };
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
