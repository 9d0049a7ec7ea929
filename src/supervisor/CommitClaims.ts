// The pump's claims (CommitPump.ts): what each commit asks to claim besides its writes, and what
// becomes of the jobs it claimed and of its word on the queue. Split from the pump's loop, which
// decides WHEN a commit goes and whether it may claim; CommitWrites.ts is the same for its writes.
//
// Invariants:
//   SLOTS (its part)  what a claim in flight may take stays counted (`slots`) from its send
//                 until its answer, as do a late claim's jobs while they wait for their heartbeat.
//   HELD          a job claimed early starts held, whatever the stop or the delay (HeldJobs.ts).
//   STALE CLAIM   a claim answered too late is not run on its word (StaleClaims.ts).
//   EARLY WAKE and THE LATEST WORD: what an answer says of the queue (`answered`).

import type { Logger } from 'pino';
import type { ClaimRequest, ClaimedJob, CommitOp, CommitResult, Store } from '../store/types.js';
import type { ClaimLane, ClaimShare } from './ClaimShare.js';
import type { HeldJobs } from './HeldJobs.js';
import { StaleClaims, type HandBackReason } from './StaleClaims.js';
import { earliestOf } from '../runtime/earliestOf.js';

/** The pump's options that its claims take (CommitPumpOptions has them all). */
export interface ClaimSettings {
  store: Pick<Store, 'heartbeat'>;
  queue: string;
  workerId: string;
  leaseMs: number;
  /** Inputs over this many bytes are not sent with a claim (ClaimRequest.maxInputBytes). */
  maxInputBytes: number;
  log: Logger;
  /** Machines with a load phase (a fresh claim of one starts `loading`). */
  loadMachines: string[];
  /**
   * Starts a job a commit claimed, its lease sure until `leaseSureUntil` (performance.now() ms:
   * SURE LEASE, ActiveJob.leaseReady).
   */
  startJob: (c: ClaimedJob, leaseSureUntil: number) => void;
  /** The slots and claim turns of the supervisor's lanes (concurrency is theirs). */
  share: ClaimShare;
}

/** What the claims need of their pump. */
export interface ClaimPump {
  /** The pump as a lane of the share (its turns move on with what it claimed). */
  lane: ClaimLane;
  /** HELD: the pump's held jobs and what its claims in flight may hold. */
  holds: HeldJobs;
  /** Queues a fenced write (a claimed job's hand-back). */
  write: (op: CommitOp) => Promise<boolean>;
  /** Whether the pump is stopping (STOPPING: a job claimed then is handed back unrun). */
  stopping: () => boolean;
}

/** One commit's claim: sent with it, its answer applied by `answered`. */
export interface Claim {
  /** Jobs asked for (0: the commit claims nothing). */
  want: number;
  /** Of them, parked jobs due within the lead it may take early (HELD). */
  hold: number;
  /** It asked for none early while another claim in flight did (EARLY WAKE). */
  partial: boolean;
}

export class CommitClaims {
  /** What the claims in flight may take between them (SLOTS). */
  private reserved = 0;
  /** STALE CLAIM: late claims' jobs, waiting for a heartbeat to confirm their leases. */
  private readonly staleClaims: StaleClaims;
  /** The last claim found the queue empty: wait for work before claiming again (THE LATEST WORD). */
  starved = false;
  /** When the next delayed job is due, by the last claim's answer (EARLY WAKE; store clock ms). */
  nextDueAt: number | null = null;

  constructor(
    private readonly o: ClaimSettings,
    private readonly pump: ClaimPump,
  ) {
    this.staleClaims = new StaleClaims({
      store: o.store,
      queue: o.queue,
      leaseMs: o.leaseMs,
      log: o.log,
      startJob: o.startJob,
      handBack: (c, reason) => this.handBack(c, reason),
      stopping: pump.stopping,
      settled: () => {
        o.share.changed();
        pump.lane.kick();
      },
    });
  }

  /** Slots the claims hold: what those in flight may take, and late claims' jobs (SLOTS). */
  get slots(): number {
    return this.reserved + this.staleClaims.slots;
  }

  /** Heartbeats in flight that confirm late claims (STOPPING: the loop ends only once none is). */
  get confirming(): number {
    return this.staleClaims.inFlight;
  }

  /** The claim of a commit that goes now, asking for `want` jobs: reserved until its answer. */
  reserve(want: number): Claim {
    // HELD: parked jobs due within the lead, on a claim that takes due or queued ones too.
    const hold = this.pump.holds.reserve(want);
    // EARLY WAKE (answered): this claim asks for none early while one in flight does.
    const partial = want > 0 && hold === 0 && this.pump.holds.reserving;
    this.reserved += want;
    return { want, hold, partial };
  }

  /** What the commit asks the store to claim (undefined: nothing). */
  request(claim: Claim): ClaimRequest | undefined {
    if (claim.want === 0) return undefined;
    const o = this.o;
    return {
      workerId: o.workerId,
      max: claim.want,
      leaseMs: o.leaseMs,
      loadMachines: o.loadMachines,
      maxInputBytes: o.maxInputBytes,
      ...this.pump.holds.claimOptions(claim.hold),
    };
  }

  /** The claim's commit was answered, or failed: its reservation is over. */
  settled(claim: Claim): void {
    this.reserved -= claim.want;
    this.pump.holds.answered(claim.hold);
  }

  /**
   * What becomes of the jobs an answered commit claimed, and of its word on the queue. `sentAt`:
   * when the commit was sent (performance.now()).
   */
  answered(claim: Claim, res: CommitResult, sentAt: number): void {
    const o = this.o;
    // From sending the commit to handling its answer (monotonic).
    const tookMs = performance.now() - sentAt;
    // A STALE CLAIM is not run on its word: its jobs wait for a heartbeat with their tokens.
    const stale = res.claimed.length > 0 && this.staleClaims.isLate(tookMs);
    const late: ClaimedJob[] = [];
    let held = 0;
    for (const c of res.claimed) {
      if (c.holdUntil !== undefined) {
        // HELD: started whatever the stop (its run hands it back parked, not requeued: a
        // requeue would run it before its timer is due; RunningJobs.start, pipelineRun.ts), or a
        // late answer (its lease runs to its timer and a lease more: half a lease late, it holds).
        held++;
        this.pump.holds.claimed();
        // SURE LEASE (ActiveJob.leaseReady): leased from Redis's now to its holdUntil and a
        // lease more, that now no sooner than the send.
        o.startJob(c, sentAt + Math.max(0, c.holdUntil - res.redisNow) + o.leaseMs);
      } else if (this.pump.stopping()) {
        // Claimed by a commit that was in flight when stop() began: hand it back at once,
        // unrun (T2: no work starts after the signal).
        this.handBack(c, 'shutdown');
      } else if (stale) late.push(c);
      else o.startJob(c, sentAt + o.leaseMs);
    }
    if (late.length > 0) this.staleClaims.confirm(late, tookMs);
    if (claim.want > 0) {
      // EARLY WAKE: the next due time the store names is the earlier of a job's due time and,
      // for a claim that asked for some early, the time the next parked timer enters the lead.
      // A claim that asked for none because one in flight had reserved the budget knows only
      // the first: answered after that one, it MUST NOT put off the wake that one named (the
      // pump would sleep until the jobs were due, and hold none early).
      this.nextDueAt = claim.partial ? earliestOf(this.nextDueAt, res.nextDueAt) : res.nextDueAt;
      const plain = res.claimed.length - held;
      o.share.claimed(this.pump.lane, plain);
      // THE LATEST WORD: short of its want, and of its hold (HeldJobs.tookAll), the queue is
      // taken for empty; otherwise more may be there. Set either way: commits go over one
      // connection and are answered in the order Redis ran them, so this answer is newer than
      // any before it. A claim short of its hold (timers' due times spread over a few ms, only
      // some within the lead yet) answered before one in flight that took all it asked once
      // left the pump idle until the jobs were due, holding a few hundred of its budget.
      this.starved = plain < claim.want && !this.pump.holds.tookAll(claim.hold, held);
      // Claims in flight were given back or turned into runs, and the turn may have moved on.
      o.share.changed();
    }
  }

  /** Hands a claimed job back unrun (a requeue, fenced by its token). */
  private handBack(c: ClaimedJob, reason: HandBackReason): void {
    void this.pump.write({
      kind: 'requeue',
      id: c.id,
      token: c.token,
      log: [`{"type":"requeued","reason":"${reason}"}`],
    });
  }
}
