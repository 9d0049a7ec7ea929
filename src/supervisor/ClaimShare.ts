// The slots and the claim turns that the lanes of one supervisor share (one lane per queue
// served, each with its own pump: a queue's writes and claims go in that queue's commits).
//
// Orders (SupervisorOptions.queueOrder):
//   weighted  (default) smooth weighted round robin over the lanes that may have work: each job
//             claimed adds every such lane's weight to its credit and takes the sum of their
//             weights from the claimer's; the lane with the most credit claims next. Over time
//             the jobs claimed split by weight (3:1 claims three of every four from the first
//             while both have work), and no lane with work waits long: deterministic, unlike
//             Sidekiq's weighted random pick, so the split holds over few jobs too.
//   strict    the first lane in the order given that may have work claims; a later lane only
//             when every earlier one found its queue empty (Sidekiq's strictly ordered queues).
//
// Invariants:
//   SLOTS     the lanes' running jobs plus the claims in flight never exceed `concurrency`,
//             summed over every lane (each pump's own accounting, added here).
//   HELD      the lanes' held jobs (THE EARLY LEASE, HeldJobs.ts) plus what their claims in
//             flight may hold never exceed `holdMax`, summed over every lane; apart from SLOTS.
//   EMPTY IS FREE  a lane whose last claim found its queue empty (`starved`) takes no turn and
//             sends nothing until its queue is signalled (WorkSignals) or its wait times out,
//             so an empty queue costs no round trip while the others have work.

/** What the share needs of a lane's pump. */
export interface ClaimLane {
  readonly queue: string;
  /** Slots this lane holds: running jobs not yet released, plus claims in flight. */
  used(): number;
  /** False while its queue was found empty or its writes wait out an outage. */
  mayHaveWork(): boolean;
  /** Wakes the lane's loop to look at the free slots and its turn again. */
  kick(): void;
  /** Jobs this lane holds (THE EARLY LEASE), plus what its claims in flight may hold. */
  held?(): number;
}

export type QueueOrder = 'weighted' | 'strict';

export class ClaimShare {
  private readonly lanes: { lane: ClaimLane; weight: number; credit: number }[] = [];

  constructor(
    readonly concurrency: number,
    private readonly order: QueueOrder,
    /** THE EARLY LEASE's budget of held jobs (HELD). */
    readonly holdMax = 0,
  ) {}

  add(lane: ClaimLane, weight: number): void {
    this.lanes.push({ lane, weight, credit: 0 });
  }

  /** Slots a claim may fill now, across every lane (SLOTS). */
  free(): number {
    let used = 0;
    for (const l of this.lanes) used += l.lane.used();
    return this.concurrency - used;
  }

  /** Jobs a claim may take early now, across every lane (HELD). */
  freeHold(): number {
    let held = 0;
    for (const l of this.lanes) held += l.lane.held?.() ?? 0;
    return this.holdMax - held;
  }

  /** Whether `lane` is the one to claim next. */
  hasTurn(lane: ClaimLane): boolean {
    return this.next() === lane;
  }

  /** `lane` claimed `n` jobs: the turns move on by weight. */
  claimed(lane: ClaimLane, n: number): void {
    if (n <= 0 || this.order === 'strict') return;
    const live = this.lanes.filter((l) => l.lane === lane || l.lane.mayHaveWork());
    const total = live.reduce((sum, l) => sum + l.weight, 0);
    for (let i = 0; i < n; i++) for (const l of live) l.credit += l.weight - (l.lane === lane ? total : 0);
  }

  /** Slots freed or a lane's state changed: every lane looks again (only one has the turn). */
  changed(): void {
    if (this.lanes.length < 2) return;
    for (const l of this.lanes) l.lane.kick();
  }

  private next(): ClaimLane | undefined {
    let best: (typeof this.lanes)[number] | undefined;
    for (const l of this.lanes) {
      if (!l.lane.mayHaveWork()) continue;
      if (this.order === 'strict') return l.lane;
      if (!best || l.credit > best.credit) best = l;
    }
    return best?.lane;
  }
}
