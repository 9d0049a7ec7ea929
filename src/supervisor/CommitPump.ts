// The pump: the one loop that talks to the store for claims and writes of one queue. A supervisor
// owns one per queue it serves (its lanes), sharing their slots and claim turns (ClaimShare.ts)
// and their wait for work (WorkSignals.ts); jobs queue their fenced writes here, and each
// `commit` call sends every queued write and claims new jobs in the same round trip.
//
// Modes:
//   CLAIMING  free slots, this queue's turn (ClaimShare) and not stopping: one `commit` call
//             writes every queued op and claims up to the free slot count in the same round trip.
//   BUSY      no free slot: the pump sleeps until a job queues a write, then flushes the batch
//             of writes that piled up meanwhile (one call for all of them).
//   IDLE      the queue was found empty (by the claim answered last: THE LATEST WORD, in
//             CommitClaims.ts): waits for its marker (WorkSignals: one blocking
//             connection for all the supervisor's queues; no polling) until new work, the next
//             delayed job's due time, or a write to flush. A lone queue waits only while a slot
//             is free (a full worker taking the marker would keep it from an idle one); one of
//             several waits while slots are full too, so a busy queue cannot hide its work.
//   STOPPING  no more claims; writes still flush; jobs claimed by a commit that was in flight
//             when stop began are requeued unrun. The loop ends when nothing runs, nothing is
//             queued and no commit (nor a stale claim's heartbeat) is in flight.
//
// Up to MAX_IN_FLIGHT (2) commits are in flight at once, so the worker runs the jobs one commit
// claimed while Redis applies the next commit (double buffering), and one commit claims at most
// half the slots (rounded up) so that two claims alternate.
//
// EARLY SEND: a full batch (MAX_BATCH writes, pendingWrites.ts) goes out as soon as it is full,
// not at the end of the tick, and up to MAX_FULL_IN_FLIGHT commits of full batches may be in
// flight, the ones past MAX_IN_FLIGHT claiming nothing. Timers due at one instant (25k held
// jobs, THE EARLY LEASE) fire in one timers phase, with only microtasks between them: their
// dones once all waited for that phase to end (the tick's setImmediate), Redis idle while the
// worker woke them and the worker idle while Redis wrote them; now Redis writes the first
// thousands while the worker wakes the rest.
//
// Invariants:
//   SLOTS         claims never exceed the free slots (CommitClaims counts what in-flight commits
//                 may claim, and the jobs of a late claim waiting for their heartbeat):
//                 no job is taken that this worker could not start at once. A slot
//                 is free as soon as its job queued the write that ends its run (done, fail,
//                 retry, park, ...): the claim that fills it is applied after that write.
//                 (Why not a p-limit pool: the slot count sizes each claim in the same round
//                 trip as the writes; a pool would hold claimed jobs, leased, waiting locally.)
//   HELD          THE EARLY LEASE: a claim may also take parked jobs due within the lead; each
//                 is started at once, waits for its timer in memory, and is in no slot (`used`)
//                 until its hold ends, exactly once: HeldJobs.ts (the count, the budget, the end).
//   THE GATE      held runs' timers due at once take their transitions only as fast as the
//                 store answers their writes: WakeGate.ts.
//   THE FENCE, ORDER and POISON (what becomes of a write, answered or failed): CommitWrites.ts.
//                 ORDER rests on this loop too: every commit goes over the same connection.
//   STALE CLAIM, EARLY WAKE, THE LATEST WORD (what becomes of what a commit claimed): CommitClaims.ts.

import type { OutboxRelay } from './OutboxRelay.js';
import type { CommitOp, CommitResult, Store } from '../store/types.js';
import type { ClaimLane, ClaimShare } from './ClaimShare.js';
import type { WorkSignals } from './WorkSignals.js';
import type { ActiveJob, DeferredWake, JobHost } from '../runtime/ActiveJob.js';
import type { StoreClock } from '../store/StoreClock.js';
import { ReplicaLagLog } from './ReplicaLagLog.js';
import { MAX_BATCH, type PendingWrite } from './pendingWrites.js';
import { CommitWrites } from './CommitWrites.js';
import { CrossQueueEndings } from './CrossQueueEndings.js';
import { HeldJobs } from './HeldJobs.js';
import { WakeGate } from './WakeGate.js';
import { CommitClaims, type Claim, type ClaimSettings } from './CommitClaims.js';

/** CommitClaims.ts's settings (store, queue, worker, lease, claim limits, startJob, share), and these. */
export interface CommitPumpOptions extends ClaimSettings {
  store: Store;
  concurrency: number;
  idleWaitMs: number;
  /** The supervisor's running jobs, read here only: slot counts and a write's owner. */
  running: ReadonlyMap<string, ActiveJob>;
  /** Aborts the run that held `token` (its write was refused or dropped). */
  onLeaseLost: (id: string, token: string, why: string) => void;
  /** Set from every commit's reply (Redis time); read for the idle wait's bound. */
  clock: StoreClock;
  /** The queue's outbox relay (single flight), asked for when a cross-queue child ended. */
  outbox: OutboxRelay;
  /** The supervisor's wait for work, shared by its lanes. */
  signals: WorkSignals;
  /** True when the supervisor serves several queues (see IDLE). */
  shared: boolean;
  /** THE EARLY LEASE's lead (ms; 0 or absent: off): see HELD. */
  leadMs?: number;
}

const MAX_IN_FLIGHT = 2;
/** EARLY SEND: commits in flight at once while full batches of writes wait. */
const MAX_FULL_IN_FLIGHT = 8;

export class CommitPump implements JobHost, ClaimLane {
  readonly queue: string;
  private readonly store: Store;
  /** Most jobs one commit claims: half the slots, rounded up, so that two claims alternate. */
  private readonly claimCap: number;
  private readonly share: ClaimShare;
  private readonly signals: WorkSignals;
  private readonly shared: boolean;
  private readonly idleWaitMs: number;
  private readonly running: ReadonlyMap<string, ActiveJob>;
  private readonly clock: StoreClock;

  /** Running jobs whose parent lives on another queue: their endings are relayed from the outbox. */
  private readonly crossQueueChildren: CrossQueueEndings;
  /** The queued writes, their line and their answers (THE FENCE, ORDER, POISON). */
  private readonly writes: CommitWrites;
  /** What each commit claims, and what becomes of it (SLOTS, STALE CLAIM, THE LATEST WORD). */
  private readonly claims: CommitClaims;
  /** THE GATE: held runs' due timers go on as fast as the store answers their writes. */
  private readonly wakes: WakeGate;
  /** Durability 'replicated': commits written but not acknowledged by their replicas in time. */
  private readonly replicaLag: ReplicaLagLog;
  /** Commits sent and not yet answered. */
  private inFlightCommits = 0;
  /** Running jobs that queued the write ending their run (their slot is free already). */
  private releasing = 0;
  /** HELD: running jobs waiting for their timer in memory, and what claims in flight may hold. */
  private readonly holds: HeldJobs;
  private wake: (() => void) | undefined;
  /** EARLY SEND: ends the loop's wait for the tick's end once a batch is full. */
  private batchFull: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private stopping = false;

  constructor(options: CommitPumpOptions) {
    this.store = options.store;
    this.queue = options.queue;
    this.claimCap = Math.max(1, Math.ceil(options.concurrency / MAX_IN_FLIGHT));
    this.idleWaitMs = options.idleWaitMs;
    this.running = options.running;
    this.clock = options.clock;
    this.crossQueueChildren = new CrossQueueEndings(options.outbox, options.log);
    this.share = options.share;
    this.signals = options.signals;
    this.shared = options.shared;
    this.holds = new HeldJobs(options.share, options.leadMs ?? 0);
    this.writes = new CommitWrites({
      log: options.log,
      onLeaseLost: options.onLeaseLost,
      onBackoff: () => this.share.changed(),
    });
    this.wakes = new WakeGate(() => this.writes.unanswered);
    this.replicaLag = new ReplicaLagLog(options.log);
    this.claims = new CommitClaims(options, {
      lane: this,
      holds: this.holds,
      write: (op) => this.write(op),
      stopping: () => this.stopping,
    });
  }

  /** How many entries the pump's per-job maps hold (tests: they must not grow with jobs run). */
  get trackedJobs(): { lastSent: number; crossQueueChildren: number } {
    return { lastSent: this.writes.inFlightJobs, crossQueueChildren: this.crossQueueChildren.size };
  }

  /** Starts the loop. A pump runs once: a supervisor started again makes a new one. */
  start(): void {
    if (this.loop) throw new Error('CommitPump: already started');
    this.loop = this.run();
  }

  /** STOPPING: no more claims; a blocking wait in progress is cut short. */
  stop(): void {
    this.stopping = true;
    this.signals.leave(this.queue);
    this.kick();
  }

  /** Resolves once the loop has ended (after stop(): nothing runs, queued or in flight). */
  drain(): Promise<void> | undefined {
    this.kick();
    return this.loop;
  }

  /** Queues a fenced write; the pump sends it with the next batch. */
  write(op: CommitOp, job?: ActiveJob): Promise<boolean> {
    if (job && !job.released && op.kind !== 'checkpoint' && this.running.get(job.id) === job) {
      this.holds.end(job);
      job.released = true;
      this.releasing++;
      this.share.changed();
    }
    // A done may take in the job's checkpoint still in line when the run was claimed `working`
    // with no lease requeues (COALESCING, pendingWrites.ts).
    const c = job?.claimed;
    const written = this.writes.queue(op, c !== undefined && c.status === 'working' && !c.leaseRequeues);
    if (this.batchFull !== undefined && this.writes.waiting >= MAX_BATCH) this.batchFull();
    this.kick();
    return written;
  }

  /** A run leaves the running set (it ended, or a new claim of its job replaced it). */
  runEnded(job: ActiveJob): void {
    this.holds.end(job);
    if (job.released) this.releasing--;
    else this.share.changed();
    // Its ending write was answered already (runs await it) and the relay check ran then; a run
    // that lost its lease wrote no ending and would otherwise stay here for good.
    this.crossQueueChildren.forget(job.id);
  }

  /** A running child whose parent is on another queue: its ending is relayed from the outbox. */
  noteCrossQueueChild(id: string): void {
    this.crossQueueChildren.note(id);
  }

  /**
   * THE GATE (WakeGate.ts): whether a held run's due timer goes on now, or waits its turn (in the
   * async context it came in, with `keepScope`: a job's stray-error scope).
   */
  passWake(wake: DeferredWake, keepScope = false): boolean {
    return this.wakes.pass(wake, keepScope);
  }

  /** HELD: the job's timer is due: it takes a slot from now on. */
  woke(job: ActiveJob): void {
    if (this.running.get(job.id) !== job) return;
    this.holds.end(job);
    // Its hold is free again: a claim may take another early (the last may have found the
    // budget full and left the entries due within the lead for now).
    this.claims.starved = false;
    this.kick();
  }

  /** HELD: jobs this lane holds, and that its claims in flight may take early. */
  held(): number {
    return this.holds.held();
  }

  kick(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Commits that may be in flight now: more while full batches wait (EARLY SEND). */
  private inFlightCap(): number {
    return this.writes.waiting >= MAX_BATCH ? MAX_FULL_IN_FLIGHT : MAX_IN_FLIGHT;
  }

  /** Slots a claim may fill now (SLOTS, summed over the supervisor's lanes). */
  private freeSlots(): number {
    if (this.stopping) return 0;
    return this.share.free();
  }

  used(): number {
    return this.running.size - this.releasing - this.holds.count + this.claims.slots;
  }

  mayHaveWork(): boolean {
    return !this.claims.starved && !this.stopping && this.writes.retryAt === 0;
  }

  /** The loop: waits (IDLE, BUSY) while there is nothing to send, else sends a commit (CLAIMING). */
  private async run(): Promise<void> {
    for (;;) {
      if (this.finished()) return;
      if (this.mustWait()) {
        if (this.mayIdle()) {
          // A kick with a write to flush ends the wait too: its commit claims as well, at no cost.
          if ((await this.idle()) || this.writes.waiting > 0) {
            this.claims.starved = false;
            this.share.changed();
          }
        } else {
          // BUSY, or a backoff: until a kick (a write queued, a commit answered, a slot freed).
          const backoff = this.backoffTimer();
          await new Promise<void>((r) => (this.wake = r));
          clearTimeout(backoff);
          if (this.writes.retryAt !== 0 && this.writes.backoffLeft() === 0) this.share.changed();
        }
        continue;
      }
      const wait = this.writes.backoffLeft();
      if (wait > 0) {
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      // Let writes of the same tick join this batch, unless it is full (EARLY SEND).
      if (this.writes.waiting < MAX_BATCH) await this.tickEnd();
      this.batchFull = undefined;
      if (this.inFlightCommits >= this.inFlightCap() || this.writes.retryAt !== 0) continue;
      this.send();
    }
  }

  /** STOPPING is over: nothing runs, nothing is queued, nothing is in flight. */
  private finished(): boolean {
    return (
      this.stopping &&
      this.running.size === 0 &&
      this.writes.waiting === 0 &&
      this.inFlightCommits === 0 &&
      this.claims.confirming === 0
    );
  }

  /** Nothing to send now: the commits in flight are at their cap, or no write waits and no claim may go. */
  private mustWait(): boolean {
    const canClaim = !this.claims.starved && this.freeSlots() > 0 && this.share.hasTurn(this);
    return this.inFlightCommits >= this.inFlightCap() || (this.writes.waiting === 0 && !canClaim);
  }

  /** IDLE: the queue was found empty and nothing is in flight or queued (a lone queue: a slot is free). */
  private mayIdle(): boolean {
    return (
      this.inFlightCommits === 0 &&
      this.writes.waiting === 0 &&
      this.claims.starved &&
      !this.stopping &&
      (this.shared || this.freeSlots() > 0)
    );
  }

  /**
   * A failed commit waiting out its backoff takes the lane out of the turns (see mayHaveWork);
   * when nothing else is in flight (a claim-only commit refused while a master fails over: no job
   * running, no write pending) nothing would kick it, and the lane would never claim again. Its
   * own timer ends the backoff then.
   */
  private backoffTimer(): NodeJS.Timeout | undefined {
    return this.writes.retryAt === 0
      ? undefined
      : setTimeout(() => this.kick(), Math.max(0, this.writes.retryAt - Date.now()));
  }

  /** The end of this tick, or a full batch (EARLY SEND: `write` resolves it early). */
  private tickEnd(): Promise<void> {
    return new Promise<void>((r) => {
      this.batchFull = r;
      setImmediate(r);
    });
  }

  /**
   * CLAIMING (or BUSY's flush): one commit with every queued write (up to MAX_BATCH) and a claim
   * for up to the free slots, when this lane may claim; its answer is applied by `committed`.
   */
  private send(): void {
    const { batch, isolating } = this.writes.take();
    const want =
      this.inFlightCommits >= MAX_IN_FLIGHT || this.claims.starved || isolating || !this.share.hasTurn(this)
        ? 0
        : Math.max(0, Math.min(this.claimCap, this.freeSlots()));
    if (batch.length === 0 && want === 0) return;
    const claim = this.claims.reserve(want);
    this.inFlightCommits++;
    this.writes.sent(batch);
    const sentAt = performance.now();
    void this.store
      .commit(
        this.queue,
        batch.map((p) => p.op),
        this.claims.request(claim),
      )
      .then(
        (res) => {
          this.clock.observe(res.redisNow, sentAt, performance.now());
          this.inFlightCommits--;
          this.claims.settled(claim);
          this.writes.landed(batch);
          if (batch.length > 0) this.replicaLag.observe(res.unreplicated);
          this.committed(batch, claim, res, sentAt);
          this.wakes.answered();
          this.kick();
        },
        (err: unknown) => {
          this.inFlightCommits--;
          this.claims.settled(claim);
          this.writes.failed(batch, err);
          this.wakes.answered();
          this.kick();
        },
      );
  }

  /** An answered commit: its writes' answers, then what it claimed. `sentAt`: performance.now(). */
  private committed(batch: PendingWrite[], claim: Claim, res: CommitResult, sentAt: number): void {
    this.writes.answered(batch, res.written);
    this.crossQueueChildren.written(batch);
    this.claims.answered(claim, res, sentAt);
  }

  /**
   * IDLE: waits until work is signalled or the next delayed job is due (true: look again), or
   * a kick (false: a write queued, or slots or turns changed): WorkSignals.idle, whose SIGNAL
   * AFTER KICK takes a signal that came with the kick as a look again.
   */
  private async idle(): Promise<boolean> {
    let timeout = this.idleWaitMs;
    const dueAt = this.claims.nextDueAt;
    if (dueAt !== null) timeout = Math.max(5, Math.min(timeout, dueAt - this.clock.now() + 5));
    const kicked = new Promise<false>((r) => (this.wake = () => r(false)));
    const lookAgain = await this.signals.idle(this.queue, timeout, kicked);
    this.wake = undefined;
    return lookAgain;
  }
}
