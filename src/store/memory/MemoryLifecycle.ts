// THE LIFECYCLE of MemoryStore: every status change of a job, written once, as lcGuard + lcMove
// in lua/include/lcGuard.lua and lcMove.lua are RedisStore's. Operations (commitOps.ts, jobOps.ts, leaseOps.ts, ...) decide
// WHICH move a job makes; only `move` makes it. No operation sets `status`, or moves a job
// between the status indexes, by hand.
//
// THE GUARDED-MOVE RULE (it must never break): a move is made only when `guardMove` (src/store/lifecycleTable.ts, the
// same table and guards as the Lua side, held equal by test/lifecycle/lifecycleTable.test.ts)
// allows it: the job exists; THE FENCE: a worker's write carries the job's lease token; the
// move is an edge of EDGES. Then THE CANCEL GUARD, here in `move`: a job whose cancel was
// requested that would be requeued, retried, parked, woken or claimed ends `cancelled` instead;
// a finishing write (done, failed) of the attempt that was running still lands.
//
// What each target does (as lcMove): leaving a status takes the job out of its indexes;
// `queued` lists it in `queued` (its old place, or a fresh one behind its band) or in `delayed`
// until its run-at time, and wakes an idle supervisor; `loading`/`working` from `queued` is the
// claim (token, claim time, lease deadline in `active`); kept, a checkpoint (lease requeues start
// over); `waiting` lists it in `waiting`, and in `delayed` at its wake time, at once when an
// event or a fan-in came after the worker last looked; a final status clears the lease, the
// inbox, the fan-in flag and the run-at time, tells the job's watchers, its parent and the
// stream, and a done or cancelled parent's fan-out records expire with it (FanIn.ts). A job with
// a concurrency key that leaves loading/working frees its key's slot (FlowLines.freeSlot), and
// a job holding a machine gate's slot frees it (FlowLines.freeGate): in leave, only. Every job
// enters `queued` through FlowLines.enterQueued.

import type { JobStatus } from '../types.js';
import { FINAL, UPDATABLE, guardMove, type Refusal } from '../lifecycleTable.js';
import { BAND } from '../storeConstants.js';
import { appendLog, type MemoryJob } from './MemoryJob.js';
import type { QueueState } from './QueueState.js';
import { fanInOutcome } from '../outboxEntry.js';
import { FlowLines } from './FlowLines.js';
import { FanIn } from './FanIn.js';

export interface MoveOptions {
  /** The caller's lease token (THE FENCE); undefined for moves no worker makes. */
  token?: string;
  /** The stream entry's type (none when absent). */
  kind?: string;
  /** Audit entries: JSON objects without "at". */
  log?: readonly string[];
  /** Fields the write sets on the record. */
  set?: Partial<MemoryJob>;
  /** queued / waiting: when it is due (store time); absent or <= now: now. */
  runAt?: number;
  /** queued: its place in line (default: the one it had). */
  score?: number;
  /** queued: a new place behind the jobs waiting in its band. */
  fresh?: boolean;
  /** failed: set aside in `broken` with this reason (else a dead letter). */
  broken?: string;
  /** done / failed: the output / error JSON (a parent's fan-in outcome). */
  output?: string;
  error?: string;
  /** waiting: inbox events the parked snapshot has taken in. */
  consumed?: number;
  /** The audit entry if the cancel guard turns the move into a cancel. */
  cancelLog?: string;
  /** loading / working from queued: the claim's lease. */
  claim?: { token: string; deadline: number; entry?: string };
}

/** What the lifecycle needs of the store around it. */
export interface LifecycleHost {
  now: number;
  finishedTtlMs: number;
  emit(q: QueueState, jobId: string, type: string, status: string): void;
  /** An idle supervisor of the queue is to be woken when the operation ends. */
  wake(q: QueueState): void;
  publish(q: QueueState, workerId: string, message: string): void;
  /** The job just finished: its final record goes to each of its watchers. */
  pushResult(q: QueueState, job: MemoryJob): void;
}

const DEFAULT_CANCEL_LOG = '{"type":"cancelled","reason":"cancel requested"}';

export class MemoryLifecycle {
  /** THE FLOW GATE's lines: entering `queued`, the round robin's heads, freeing slots. */
  readonly lines: FlowLines;
  /** A finished child's outcome to its parent, and the parent's fan-out records. */
  readonly fans: FanIn;

  constructor(private readonly host: LifecycleHost) {
    this.lines = new FlowLines(host);
    this.fans = new FanIn(host, (pq, p) => this.move(pq, p, 'queued', { kind: 'fan-in' }));
  }

  /**
   * Moves `job` to `to` if the guards allow it. Returns the status the job is in after the
   * move, or why it was refused ('missing' | 'fence' | 'status'), writing nothing then.
   */
  move(
    q: QueueState,
    job: MemoryJob | undefined,
    to: JobStatus,
    o: MoveOptions = {},
  ): { moved: JobStatus } | { refused: Refusal } {
    const refused = guardMove(job, to, o.token);
    if (refused) return { refused };
    const j = job!;
    if (j.cancelRequested && !FINAL.has(to) && !(UPDATABLE.has(to) && j.status === to)) {
      // THE CANCEL GUARD (see the header).
      to = 'cancelled';
      o = { kind: 'cancelled', log: [o.cancelLog ?? DEFAULT_CANCEL_LOG], set: o.set };
    }
    const now = this.host.now;
    if (o.set) for (const [k, v] of Object.entries(o.set)) if (v !== undefined) (j as any)[k] = v;
    if (FINAL.has(to)) this.finish(q, j, to, o);
    else if (j.status === 'queued' && UPDATABLE.has(to)) this.claim(q, j, to, o);
    else if (UPDATABLE.has(to)) {
      // A checkpoint (or LOADED): the job made progress, so its lease requeues start over.
      j.status = to;
      j.updatedAt = now;
      if (!j.minimal) appendLog(j, now, o.log ?? []);
      delete j.leaseRequeues;
    } else {
      if (j.status !== to) this.leave(q, j);
      j.updatedAt = now;
      if (to === 'queued') this.queue(q, j, o);
      else this.enterWaiting(q, j, o);
      if (!j.minimal) appendLog(j, now, o.log ?? []);
    }
    if (o.kind && !j.minimal) this.host.emit(q, j.id, o.kind, to);
    // A minimal record that ended done goes now, its watchers told (finish).
    if (to === 'done' && j.minimal) q.dropRecord(j.id);
    return { moved: to };
  }

  /** A new job (ENQUEUE, the machine's initial `queued`): listed in `queued`, or in `delayed` until its run-at. */
  create(q: QueueState, job: MemoryJob): void {
    q.jobs.set(job.id, job);
    if (job.runAt !== undefined) q.index.delayed.add(job.id, job.runAt);
    else this.lines.enterQueued(q, job.id, job.queueScore!, job.concurrencyKey);
    this.host.wake(q);
    if (!job.minimal) this.host.emit(q, job.id, 'enqueued', 'queued');
  }

  /** A finished record made anew under its id (a revived child): out of its indexes, with its inbox. */
  forget(q: QueueState, job: MemoryJob): void {
    this.leave(q, job);
    q.jobs.delete(job.id);
  }

  /**
   * Asks a running job to stop (as cancel-8.lua's running branch, and commit-12.lua's
   * cancelInProgress): `cx` set once, logged and told on the stream, and its worker told on its
   * control channel (again, when asked again). Not a move: the job's worker ends it.
   */
  requestCancel(q: QueueState, j: MemoryJob, worker: string, reason: string): void {
    if (!j.cancelRequested) {
      j.cancelRequested = true;
      j.updatedAt = this.host.now;
      appendLog(j, this.host.now, [JSON.stringify({ type: 'cancel-requested', reason })]);
      this.host.emit(q, j.id, 'cancel-requested', j.status);
    }
    this.host.publish(q, worker, `cancel ${j.id}`);
  }

  /** Out of the indexes a job of its status is listed in (lcLeave.lua; dedupe.ts moves a queued job's run-at with it). */
  leave(q: QueueState, j: MemoryJob): void {
    const { index } = q;
    switch (j.status) {
      case 'queued':
        // A head of its key leaving (roundRobin): the key's next enters (headLeft).
        if (index.queued.delete(j.id) && j.concurrencyKey !== undefined && q.flow.roundRobin)
          this.lines.headLeft(q, j.concurrencyKey, true);
        index.delayed.delete(j.id);
        if (j.concurrencyKey !== undefined) {
          q.flow.waiting.get(j.concurrencyKey)?.delete(j.id);
          q.flow.tidy(j.concurrencyKey);
        }
        for (const [gate, line] of q.flow.gateLines)
          if (line.delete(j.id) && line.size === 0) q.flow.gateLines.delete(gate);
        break;
      case 'loading':
      case 'working':
        index.active.delete(j.id);
        if (j.concurrencyKey !== undefined) this.lines.freeSlot(q, j.id, j.concurrencyKey);
        if (q.flow.gateHolders.size > 0) this.lines.freeGate(q, j.id);
        break;
      case 'waiting':
        index.waiting.delete(j.id);
        index.delayed.delete(j.id);
        break;
      case 'failed':
        index.failed.delete(j.id);
        index.dead.delete(j.id);
        index.broken.delete(j.id);
        q.brokenWhy.delete(j.id);
        break;
      case 'done':
      case 'cancelled':
        index[j.status].delete(j.id);
        break;
    }
  }

  private finish(q: QueueState, j: MemoryJob, to: JobStatus, o: MoveOptions): void {
    const now = this.host.now;
    q.tallies.add(now, to, j.createdAt, j.claimedAt);
    this.leave(q, j);
    j.status = to;
    j.finishedAt = now;
    if (!j.minimal) appendLog(j, now, o.log ?? []);
    delete j.token;
    // A done or cancelled record keeps no place in line (a redriven dead letter keeps its own).
    if (to !== 'failed') delete j.queueScore;
    // A done job reports no error: the audit log keeps the failed attempts' (lcMove.lua).
    if (to === 'done') delete j.error;
    delete j.runAt;
    // The inbox goes; its events' ids stay with the record, so that a send repeated after the
    // end is answered as delivered (jobOps.send; lcMove.lua's twin).
    delete j.inbox;
    delete j.inboxConsumed;
    delete j.fanInWake;
    // A minimal record that ends done is not listed: move() deletes it (lcMove.lua's twin).
    if (!(j.minimal && to === 'done')) q.index[to as 'done' | 'failed' | 'cancelled'].add(j.id, now);
    if (to === 'failed') {
      if (o.broken !== undefined) {
        q.index.broken.add(j.id, now);
        q.brokenWhy.set(j.id, o.broken);
      } else q.index.dead.add(j.id, now);
    }
    if (j.watchers) {
      this.host.pushResult(q, j);
      delete j.watchers;
    }
    if (j.parentId !== undefined) this.fans.notifyParent(q, j, to, fanInOutcome(to, o.output, o.error));
    if (j.fanGroups && to !== 'failed') this.fans.expireFans(q, j);
    if (j.dedupeKey !== undefined) this.releaseDedupe(q, j);
  }

  /**
   * DEDUPE RELEASE (lcMove.lua's twin; memory/dedupe.ts): a job made under a dedupe key frees it
   * as it ends, and a keepLast job pending behind it is due now.
   */
  private releaseDedupe(q: QueueState, j: MemoryJob): void {
    const rec = q.dedupe.get(j.dedupeKey!);
    if (!rec) return;
    if (rec.next === j.id) return void delete rec.next;
    if (rec.id !== j.id) return;
    if (rec.next === undefined) return void q.dedupe.delete(j.dedupeKey!);
    rec.id = rec.next;
    delete rec.next;
    const p = q.jobs.get(rec.id);
    if (p?.status === 'queued') {
      this.leave(q, p);
      this.move(q, p, 'queued', { fresh: true, log: [`{"type":"due","after":"${j.id}"}`] });
    }
  }

  /** The claim of a queued job under a lease until `deadline`. */
  private claim(q: QueueState, j: MemoryJob, to: JobStatus, o: MoveOptions): void {
    const c = o.claim!;
    this.leave(q, j);
    j.status = to;
    j.token = c.token;
    j.claimedAt = this.host.now;
    if (c.entry && !j.minimal) appendLog(j, this.host.now, [c.entry]);
    q.index.active.add(j.id, c.deadline);
  }

  private queue(q: QueueState, j: MemoryJob, o: MoveOptions): void {
    j.status = 'queued';
    delete j.token;
    if (o.runAt !== undefined && o.runAt > this.host.now) {
      j.runAt = o.runAt;
      this.wakeIfEarlier(q, o.runAt);
      q.index.delayed.add(j.id, o.runAt);
      return;
    }
    let score = o.score;
    if (score === undefined && !o.fresh) score = j.queueScore;
    // No place in line kept: behind the jobs waiting in its band.
    score ??= j.band * BAND + ++q.seq;
    j.queueScore = score;
    delete j.runAt;
    this.lines.enterQueued(q, j.id, score, j.concurrencyKey);
    this.host.wake(q);
  }

  private enterWaiting(q: QueueState, j: MemoryJob, o: MoveOptions): void {
    j.status = 'waiting';
    delete j.token;
    q.index.waiting.add(j.id, this.host.now);
    // An event or a fan-in may have come after the worker last looked: wake it at once.
    const fanIn = j.fanInWake;
    delete j.fanInWake;
    let runAt = o.runAt;
    if (fanIn || (j.inbox && j.inbox.length > (o.consumed ?? 0))) runAt = 0;
    if (runAt !== undefined) {
      if (runAt > 0) j.runAt = runAt;
      this.wakeIfEarlier(q, runAt);
      q.index.delayed.add(j.id, runAt);
    }
  }

  /** An idle supervisor sleeps until the earliest `delayed` entry it saw: an earlier one wakes it. */
  private wakeIfEarlier(q: QueueState, runAt: number): void {
    const first = q.index.delayed.first();
    if (!first || runAt < first.score) this.host.wake(q);
  }
}
