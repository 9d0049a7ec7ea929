// A pump's gate for held runs' timers (THE EARLY LEASE: HeldJobs.ts, pipeline/heldRun.ts): when
// many are due at one instant, they take their transitions only as fast as the store answers the
// writes they make.
//
// Why: a worker woke the 25k runs it held in one timers phase, each waking run queuing its done.
// Four such workers on a 2-core host took both cores for 1.3 s while Redis, which must write
// every one of those dones, got a third of one; then Redis drained the backlog alone while a core
// idled (workload 15: 100k due at once, late p99 2.2 s). Held back, a worker idles while its
// writes wait, and Redis gets the CPU as they come: the same run's p99 was 1.5 s.
//
// Invariants:
//   THE GATE   a held run's due timer takes its transition at once while the pump has fewer
//              than WAKE_BACKLOG writes unanswered (queued or in flight) and none waits in line;
//              else it waits in line, FIFO, and goes on as answers bring the backlog under the
//              limit, at most as many at a time as the room left (their writes are queued only
//              in the microtasks after them).
//   LIVENESS   while the line is not empty, a release is scheduled or writes are unanswered,
//              whose answers schedule one: a wake in line is never left waiting for nothing.
// Only held runs' timers are gated: a timer of a running job, or of a job claimed due, fires
// as it always did.

import { AsyncResource } from 'node:async_hooks';
import type { DeferredWake } from '../runtime/ActiveJob.js';

/** Writes a pump may have unanswered before held runs' due timers wait: two full commits. */
export const WAKE_BACKLOG = 2000;

export class WakeGate {
  private line: (DeferredWake | undefined)[] = [];
  private head = 0;
  private releaseScheduled = false;

  constructor(
    /** The pump's writes queued or in flight, unanswered. */
    private readonly unanswered: () => number,
    private readonly limit = WAKE_BACKLOG,
  ) {}

  /** Wakes waiting in line. */
  get waiting(): number {
    return this.line.length - this.head;
  }

  /**
   * THE GATE: whether `wake` takes its transition now; false: it waits in line. `keepScope`: its
   * turn comes in the async context of this call (a job's stray-error scope), not the release's.
   */
  pass(wake: DeferredWake, keepScope = false): boolean {
    if (this.waiting === 0 && this.unanswered() < this.limit) return true;
    this.line.push(keepScope ? { wakeNow: AsyncResource.bind(() => wake.wakeNow()) } : wake);
    this.scheduleIfRoom();
    return false;
  }

  /** Writes were answered (or failed): wakes in line may go on. */
  answered(): void {
    if (this.waiting > 0) this.scheduleIfRoom();
  }

  /** LIVENESS: a release once the backlog is down to half the limit (answers bring it there). */
  private scheduleIfRoom(): void {
    if (this.releaseScheduled || this.unanswered() > this.limit / 2) return;
    this.releaseScheduled = true;
    setImmediate(WakeGate.release, this);
  }

  private static release(this: void, gate: WakeGate): void {
    gate.releaseScheduled = false;
    let room = gate.limit - gate.unanswered();
    while (room-- > 0 && gate.head < gate.line.length) {
      const wake = gate.line[gate.head]!;
      gate.line[gate.head++] = undefined;
      wake.wakeNow();
    }
    if (gate.head === gate.line.length) {
      gate.line = [];
      gate.head = 0;
    }
    // LIVENESS: wakes that queued nothing (their run had ended meanwhile) leave room. The next
    // release measures it after this one's microtasks, where the wakes queue their writes.
    if (gate.waiting > 0) gate.scheduleIfRoom();
  }
}
