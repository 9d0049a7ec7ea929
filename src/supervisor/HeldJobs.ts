// A pump's held jobs (THE EARLY LEASE: SupervisorOptions.leadMs, holdMax): how many of its
// running jobs a claim took before their timer was due, and how many its claims in flight may
// take so. They wait in memory (pipeline/heldRun.ts), off the slots (CommitPump.ts SLOTS).
//
// Invariant:
//   HELD  a claim asks for up to `hold` parked jobs due within the lead (`reserve`: the
//         supervisor's budget left, ClaimShare.freeHold, at most EARLY_CLAIM_CAP a call), on a
//         claim that takes due or queued ones too. Each one claimed is counted here (`claimed`)
//         and in no slot (CommitPump.used) until its timer is due (CommitPump.woke), it queues
//         its ending write (CommitPump.write), or its run ends (CommitPump.runEnded): the first
//         of these ends its hold (`end`), and it is ended EXACTLY ONCE (the job's own `holding`
//         flag, cleared here and nowhere else, says whether it still is). Woken, it takes a slot
//         like any run (`used` may exceed the concurrency then: the claims want nothing more
//         until slots free). The budget is the supervisor's (ClaimShare), apart from the slots
//         and the queue's flow totals (the store takes none early on a queue with a total).

import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { ClaimShare } from './ClaimShare.js';

/**
 * Most jobs one claim takes early (THE EARLY LEASE): each costs Redis a due claim's work (~100k
 * instructions under callgrind), so 500 are a ~15 ms call at most; more at once would stall every
 * other client (lcClaimDue.lua's AS MANY AS THE CLAIM TAKES says the same of due jobs).
 */
export const EARLY_CLAIM_CAP = 500;

export class HeldJobs {
  /** Running jobs of this pump still held (each with `holding` set). */
  private holding = 0;
  /** What the claims in flight may hold between them. */
  private reserved = 0;

  constructor(
    /** The supervisor's budget (HELD) and the lanes' wake-up when a hold ends. */
    private readonly share: Pick<ClaimShare, 'freeHold' | 'changed'>,
    /** The lead (ms; 0: off, no claim takes any early). */
    private readonly leadMs: number,
  ) {}

  /** Running jobs held now (not in the slots). */
  get count(): number {
    return this.holding;
  }

  /** Whether a claim in flight asked for some early (CommitClaims' EARLY WAKE). */
  get reserving(): boolean {
    return this.reserved > 0;
  }

  /** Jobs held, plus what the claims in flight may hold (ClaimLane.held). */
  held(): number {
    return this.holding + this.reserved;
  }

  /**
   * How many a claim for `want` jobs may take early (0: none, the claim sends no lead), reserved
   * until its answer (`answered`). A claim that wants none takes none early either.
   */
  reserve(want: number): number {
    const hold =
      want > 0 && this.leadMs > 0 ? Math.max(0, Math.min(EARLY_CLAIM_CAP, this.share.freeHold())) : 0;
    this.reserved += hold;
    return hold;
  }

  /** The claim options that ask for `hold` early (none when 0). */
  claimOptions(hold: number): { leadMs: number; hold: number } | Record<string, never> {
    return hold > 0 ? { leadMs: this.leadMs, hold } : {};
  }

  /** The claim that reserved `hold` was answered, or failed: its reservation is over. */
  answered(hold: number): void {
    this.reserved -= hold;
  }

  /** A claim took a job early (ClaimedJob.holdUntil): held from now until `end`. */
  claimed(): void {
    this.holding++;
  }

  /**
   * Whether a claim took all it asked for early: more may be due within the lead, so its queue
   * is not taken for empty however few it claimed otherwise.
   */
  tookAll(hold: number, took: number): boolean {
    return hold > 0 && took >= hold;
  }

  /** Ends the job's hold, EXACTLY ONCE (HELD): later calls for the same job do nothing. */
  end(job: Pick<ActiveJob, 'holding'>): void {
    if (!job.holding) return;
    job.holding = false;
    this.holding--;
    this.share.changed();
  }
}
