// The earliest time any running job of a supervisor's queue may time out or stall: what lets the
// deadline sweep (supervisor/LeaseKeeper.ts) skip its walk of the running jobs until then.
//
// THE BOUND: no running job's `deadline` or `stallDeadline` (ActiveJob, performance.now() ms;
// 0: none) is earlier than `earliest`. Kept true by ActiveJob: each deadline it sets (setDeadline,
// armStall, a stall deadline a report or a state moves on) is noted here; a deadline cleared (0)
// is no deadline. The sweep walks the jobs only once `earliest` has passed, and the walk makes it
// anew from the deadlines it sees (Infinity: none).
//
// Why: every job has a deadline (a pipeline's default timeout is 5 min), so a sweep every 20 ms
// walked every running job. With the early lease a worker holds 25k jobs waiting for their
// timers; that walk took 20-40% of the workers' CPU while the timers drained (workload 15,
// bench/RESULTS.md).

export class DeadlineBound {
  /** No running job's deadline is earlier than this (performance.now() ms; Infinity: none). */
  earliest = Infinity;

  /** A deadline was set: the bound moves to it when it is earlier. */
  note(at: number): void {
    if (at < this.earliest) this.earliest = at;
  }
}
