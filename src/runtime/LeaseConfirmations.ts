// The runs of a supervisor's queue that wait to learn whether their lease is still theirs before
// they start their job's own code (SURE LEASE, enforced at ActiveJob.leaseReady), and how they
// ask: one heartbeat sent from now on (supervisor/LeaseKeeper.ts) answers all of them.
//
// Why: a run learns that its lease passed only from a heartbeat or a refused write. A process
// frozen (SIGSTOP), starved, or cut off from Redis for longer than a lease between its claim's
// answer and its step's start would start that step after the reaper had requeued the job and
// another worker had run it past that step's checkpoint (chaos T3 saw a flow's step `a` start so,
// 2 s after another worker's `pause` checkpoint). STALE CLAIM (StaleClaims.ts) catches a claim
// whose answer came late; this catches a freeze after the answer, or in a run's later steps.

// Runs are kept as the objects they are (ActiveJob): this file does not import it, which imports this.
export class LeaseConfirmations {
  private readonly waiting = new Set<object>();
  /**
   * Set by the queue's LeaseKeeper: sends a heartbeat of every running job soon, sent after this
   * call (one in flight at a time: one in flight now is followed by another).
   */
  beat: () => void = () => {};

  /** Runs waiting now. */
  get size(): number {
    return this.waiting.size;
  }

  has(run: object): boolean {
    return this.waiting.has(run);
  }

  /** `run` waits for a heartbeat sent from now on. */
  want(run: object): void {
    this.waiting.add(run);
    this.beat();
  }

  /** `run` waits no more: its lease was renewed, or its run was aborted. */
  done(run: object): void {
    this.waiting.delete(run);
  }
}

/** A job made outside a supervisor (tests, probes): nothing renews its lease, nothing waits. */
export const NO_CONFIRMATIONS = new LeaseConfirmations();
