// The pump's writes (CommitPump.ts): the fenced writes its jobs queue, what each commit sends of
// them, and what becomes of them when the commit is answered or fails. Split from the pump's
// loop, which decides WHEN a commit goes and what it claims; this file decides what becomes of
// a write, and keeps three of the pump's invariants:
//
//   THE FENCE     every write carries its run's lease token; Redis refuses it once the lease is
//                 gone, and a refused (or poison) write aborts that run (`onLeaseLost`), which
//                 then never writes again.
//   ORDER         a job's writes keep their order: every commit goes over the same connection
//                 and Redis applies them in the order sent. A failed commit is sent again first
//                 in line, in the order its writes were queued, minus checkpoints a later write
//                 of the same job superseded (sent behind it, that write may have landed first:
//                 a job's run writes nothing after its ending, so only checkpoints can be
//                 overtaken, and they are dropped, not sent again).
//   POISON        a batch Redis refuses with a script error is split, one suspect per commit
//                 (claiming nothing), until the write causing it is found; that write alone is
//                 dropped. A temporary error (OOM, BUSY, LOADING, READONLY, a lost connection:
//                 src/store/callErrors.ts) MUST NOT drop anything: the whole batch is sent
//                 again after a capped backoff, and nothing else is sent meanwhile.
//   COALESCING    a write queued while its job's last write in line is a checkpoint, both unsent,
//                 takes it in when the one op writes what the two would (pendingWrites.ts): a
//                 pipeline's last checkpoint travels inside its done, and a step's checkpoint
//                 still in line when the next step's is queued goes as one op with it.

import type { Logger } from 'pino';
import type { CommitOp } from '../store/types.js';
import { backoffMs, callErrorKind } from '../store/callErrors.js';
import { OutageLog } from './OutageLog.js';
import { IdTable } from './IdTable.js';
import { coalesced, nextBatch, requeued, withoutSuperseded, type PendingWrite } from './pendingWrites.js';

export interface CommitWritesOptions {
  log: Logger;
  /** Aborts the run that held `token` (its write was refused or dropped). */
  onLeaseLost: (id: string, token: string, why: string) => void;
  /** A failed batch began its backoff: the lane is out of the claim turns meanwhile. */
  onBackoff: () => void;
}

export class CommitWrites {
  private readonly log: Logger;
  private readonly onLeaseLost: (id: string, token: string, why: string) => void;
  private readonly onBackoff: () => void;
  private pending: PendingWrite[] = [];
  /**
   * Each job's last write queued since the last take (COALESCING looks at it): cleared at every
   * take, when the writes in line stop being eligible, so it never holds more than the line.
   * IdTables, this one and lastSent: their entries churn at the rate jobs run (IdTable.ts says why
   * not a Map; a cleared Map at every take promoted ~650 B per resume, its writes' ops).
   */
  private readonly lastQueued = new IdTable<PendingWrite>();
  /** The last seq a take handed to a commit: a write in line at or below it was put back. */
  private takenSeq = 0;
  private writeSeq = 0;
  /**
   * The seq of each job's last write sent and not yet answered (ORDER: a failed batch's
   * checkpoint older than it is dropped, not sent again). Deleted when that write is answered,
   * so it holds the jobs with a write in flight, not every job this worker ever ran: a failed
   * batch is filtered when its failure arrives, before anything sent behind it is answered
   * (replies come in the order sent), so an answered write is never needed again.
   */
  private readonly lastSent = new IdTable<number>();
  /** Commits failing with a temporary error: logged once per outage, retried after a backoff. */
  private readonly outage: OutageLog;
  /**
   * While a failed batch waits out its backoff nothing is sent (Date.now() ms; 0 = none). The
   * pump's loop reads it; `backoffLeft` sets it back to 0 once the backoff has passed.
   */
  retryAt = 0;
  /** Writes sent and not yet answered (nor failed). */
  private inFlight = 0;

  constructor(options: CommitWritesOptions) {
    this.log = options.log;
    this.onLeaseLost = options.onLeaseLost;
    this.onBackoff = options.onBackoff;
    this.outage = new OutageLog(this.log, 'commits');
  }

  /** How many writes wait to be sent. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Writes queued or in flight, not yet answered (THE GATE, WakeGate.ts). */
  get unanswered(): number {
    return this.pending.length + this.inFlight;
  }

  /** How many jobs have a write in flight (tests: it must not grow with jobs run). */
  get inFlightJobs(): number {
    return this.lastSent.size;
  }

  /**
   * Queues a fenced write; it resolves with whether Redis wrote it. When the job's last write in
   * line is a checkpoint, unsent, it is taken into this one if that writes the same (COALESCING
   * in pendingWrites.ts; `endable` says whether a done may take it): both resolve with the answer
   * to the one op sent, which goes where that checkpoint was. Writes of other jobs queued between
   * the two do not keep them apart: they go in the same commit (the line from the last take on is
   * one batch), a job's writes keep their order (nothing of the job is behind its last write),
   * and this write, sent ahead of them, cannot rest on any of them (a run learns of other jobs
   * only from Redis, where none of them is yet). A write put back in line after a failed commit
   * is never taken in (`isolate`, or `seq` older than the last take).
   */
  queue(op: CommitOp, endable = false): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const before = this.lastQueued.get(op.id);
      const merged =
        before !== undefined && before.seq > this.takenSeq && !before.isolate
          ? coalesced(before.op, op, endable)
          : undefined;
      if (merged === undefined) {
        const write: PendingWrite = { op, seq: ++this.writeSeq, resolve, reject };
        this.pending.push(write);
        this.lastQueued.set(op.id, write);
        return;
      }
      before!.op = merged;
      const first = before!.resolve;
      const firstReject = before!.reject;
      before!.resolve = (ok) => {
        first(ok);
        resolve(ok);
      };
      before!.reject = (err) => {
        firstReject(err);
        reject(err);
      };
    });
  }

  /**
   * Takes the writes the next commit sends (nextBatch in pendingWrites.ts). `isolating`:
   * the batch is one suspect of a script error (then the commit claims nothing).
   */
  take(): { batch: PendingWrite[]; isolating: boolean } {
    const { batch, rest, isolating } = nextBatch(this.pending);
    this.pending = rest;
    this.takenSeq = this.writeSeq;
    this.lastQueued.clear();
    return { batch, isolating };
  }

  /** The writes of `batch` are on their way (ORDER: see lastSent). */
  sent(batch: PendingWrite[]): void {
    this.inFlight += batch.length;
    for (const p of batch) this.lastSent.set(p.op.id, p.seq);
  }

  /**
   * A commit that sent `batch` was answered. A claim-only commit goes through under OOM (a
   * claim's first write frees memory) while writes are refused: only writes landing, or none
   * waiting, end an outage.
   */
  landed(batch: PendingWrite[]): void {
    if (batch.length > 0 || this.pending.length === 0) this.outage.recovered();
  }

  /**
   * A batch failed with a temporary error: nothing goes out until its backoff has passed (ms left;
   * 0: none, or passed and cleared now), so what is sent again goes in its original order, ahead
   * of anything newer.
   */
  backoffLeft(): number {
    if (this.retryAt === 0) return 0;
    const wait = this.retryAt - Date.now();
    if (wait > 0) return wait;
    this.retryAt = 0;
    return 0;
  }

  /** Resolves each write of an answered commit with its `written` flag (THE FENCE). */
  answered(batch: PendingWrite[], written: readonly boolean[]): void {
    this.inFlight -= batch.length;
    for (let i = 0; i < batch.length; i++) {
      const p = batch[i]!;
      // The job's last write sent has its answer: nothing of it is in flight any more.
      if (this.lastSent.get(p.op.id) === p.seq) this.lastSent.delete(p.op.id);
      const ok = written[i] ?? false;
      if (!ok) this.onLeaseLost(p.op.id, p.op.token, 'write refused');
      p.resolve(ok);
    }
  }

  /**
   * A commit that failed. Whatever the error, a checkpoint a later write of the same job has
   * already superseded is not sent again: it MUST NOT land after that write (the stored
   * snapshot and inbox position would go backwards).
   * - A temporary error (Redis full, busy, loading, failing over, unreachable): the rest goes
   *   again, first in line and in its original order, after a capped backoff; nothing is
   *   dropped and no job is aborted (leases cover the jobs meanwhile).
   * - A script error (Redis ran the script and it failed on these arguments): the batch is
   *   split up to find the op that causes it; that op alone is dropped and its job aborted, so
   *   one bad write cannot stall all the others.
   */
  failed(batch: PendingWrite[], err: unknown): void {
    this.inFlight -= batch.length;
    const keep = withoutSuperseded(batch, this.lastSent);
    if (callErrorKind(err) === 'transient') {
      this.outage.failed(err);
      this.retryAt = Date.now() + backoffMs(this.outage.consecutiveFailures);
      this.requeue(keep);
      // Out of the turns while it waits: another lane claims meanwhile.
      this.onBackoff();
      return;
    }
    if (keep.length === 1) {
      const p = keep[0]!;
      this.log.error({ err, jobId: p.op.id, kind: p.op.kind }, 'write refused by Redis; dropping it');
      if (this.lastSent.get(p.op.id) === p.seq) this.lastSent.delete(p.op.id);
      this.onLeaseLost(p.op.id, p.op.token, 'write failed in Redis');
      p.resolve(false);
      return;
    }
    if (keep.length > 1)
      this.log.error(
        { err, writes: keep.length },
        'commit refused by a script error; isolating the write that causes it',
      );
    for (const p of keep) p.isolate = true;
    this.requeue(keep);
  }

  /** Puts writes of a failed batch back in line, in the order they were first queued. */
  private requeue(writes: PendingWrite[]): void {
    this.pending = requeued(writes, this.pending);
  }
}
