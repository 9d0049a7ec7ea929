// Keeps a supervisor's leases: the heartbeat that extends all of them in one call, the reaper
// that requeues jobs whose lease passed (any worker's), and the sweep that aborts attempts
// past their deadline. Each runs on its own timer while the supervisor runs.
//
// The reaper sleeps until the earliest running lease passes (the store says when: nextDueMs),
// and never longer than the reaper interval: a crashed worker's jobs are requeued at their
// lease's end, not up to an interval later, and an idle cluster still reaps once an interval.
//
// Invariants:
//   LEASES  every running job not already lost has its lease extended by each heartbeat,
//           aborted runs included, until their final write lands. A failed heartbeat loses no
//           lease by itself, and a worker whose heartbeats fail does not reap (it would requeue
//           its own running jobs the moment Redis is back). A 'lost' for a run whose ending
//           write is queued is left to that write's answer (no false "lease lost"). A HELD job
//           (THE EARLY LEASE, HeldJobs.ts) is left out while it waits for its timer: its
//           claim leased it to its holdUntil and a lease more (lcClaimEarly.lua), and its timer
//           is due by its holdUntil, when it is beaten again (its cancel reaches it on the
//           control channel meanwhile). 25k held jobs a process cost the heartbeat nothing.
//           Each 'held' answer makes the lease sure from the heartbeat's send on (SURE LEASE,
//           ActiveJob.leaseReady); a run that waits for that (LeaseConfirmations.ts) is beaten
//           even while held, and another heartbeat follows at once while any still waits. So
//           is a held run whose timer is due while it waits its turn (THE GATE, WakeGate.ts).
//   REAPING  while the supervisor runs, exactly one reap is in flight or one timer set for it.

import type { Logger } from 'pino';
import type { WorkQueue } from '../store/types.js';
import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { DeadlineBound } from '../runtime/DeadlineBound.js';
import type { LeaseConfirmations } from '../runtime/LeaseConfirmations.js';
import { backoffMs, callErrorKind } from '../store/callErrors.js';
import { OutageLog } from './OutageLog.js';
import type { OutboxRelay } from './OutboxRelay.js';

/** How often the deadline sweep looks for attempts past their timeout or stall timeout. */
const DEADLINE_SWEEP_MS = 20;
/** Past a lease's end: Redis's clock and this process's timers agree only to a millisecond. */
const REAP_SLACK_MS = 2;
/** The shortest sleep between reaps (a backlog past one call's batch is due at once). */
const MIN_REAP_GAP_MS = 5;

export interface LeaseKeeperOptions {
  store: WorkQueue;
  /** The queue's outbox relay (single flight), run after every reap. */
  outbox: OutboxRelay;
  queue: string;
  log: Logger;
  /** The supervisor's running jobs (read only). */
  running: ReadonlyMap<string, ActiveJob>;
  /** THE BOUND of their deadlines (runtime/DeadlineBound.ts): the sweep walks them once it passes. */
  deadlines: DeadlineBound;
  /** Runs waiting for a heartbeat sent after they asked (SURE LEASE). */
  confirmations: LeaseConfirmations;
  leaseMs: number;
  heartbeatMs: number;
  reaperIntervalMs: number;
  maxLeaseRequeues: number;
  /** Aborts the run that held `token`: its lease is gone. */
  onLeaseLost: (id: string, token: string, why: string) => void;
  /** The reaper requeued `count` jobs whose lease had passed (for metrics). */
  onRequeued?: (count: number) => void;
}

export class LeaseKeeper {
  private readonly heartbeatOutage: OutageLog;
  private readonly reaperOutage: OutageLog;
  private heartbeatInFlight: Promise<void> | undefined;
  /** A run asked for a heartbeat while one was in flight: one sent after it follows. */
  private beatAgain = false;
  private reapTimer: NodeJS.Timeout | undefined;
  private running = false;
  /** A failed heartbeat's early retry (LEASES: renewed as soon as Redis takes it again). */
  private heartbeatRetry: NodeJS.Timeout | undefined;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly o: LeaseKeeperOptions) {
    this.heartbeatOutage = new OutageLog(o.log, 'heartbeats');
    this.reaperOutage = new OutageLog(o.log, 'reaper calls');
    o.confirmations.beat = () => {
      if (!this.running) return;
      if (this.heartbeatInFlight) this.beatAgain = true;
      else void this.heartbeat();
    };
  }

  start(): void {
    this.running = true;
    this.timers.push(setInterval(() => void this.heartbeat(), this.o.heartbeatMs));
    this.timers.push(setInterval(() => this.sweepDeadlines(), DEADLINE_SWEEP_MS));
    for (const t of this.timers) t.unref();
    // Reap once now rather than a reaper interval from now: a worker that starts is often the
    // one replacing a crashed one, whose expired leases would otherwise wait for the first
    // tick (and for nobody, when workers die faster than they reach it).
    void this.reap();
  }

  stop(): void {
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    clearTimeout(this.heartbeatRetry);
    clearTimeout(this.reapTimer);
  }

  /**
   * Aborts attempts past their deadline (one sweep for all jobs instead of a timer per job).
   * Deadlines are on the monotonic clock (performance.now()): see StoreClock.ts. The jobs are
   * walked only once THE BOUND has passed (runtime/DeadlineBound.ts), and the walk sets it anew.
   */
  private sweepDeadlines(): void {
    const bound = this.o.deadlines;
    const now = performance.now();
    if (now < bound.earliest) return;
    // Anew from what the walk sees, and from any deadline set meanwhile (an abort's side effect).
    bound.earliest = Infinity;
    for (const job of this.o.running.values()) {
      if (job.deadline !== 0 && job.deadline <= now) {
        job.deadline = 0;
        job.abort('timeout', `attempt timed out after ${job.timeoutMs} ms`);
      } else if (job.stallDeadline !== 0 && job.stallDeadline <= now) {
        job.stallDeadline = 0;
        job.abort('stalled', `attempt reported no progress for ${job.stallMs} ms`);
      }
      if (job.deadline !== 0) bound.note(job.deadline);
      if (job.stallDeadline !== 0) bound.note(job.stallDeadline);
    }
  }

  /** One heartbeat at a time: calls that pile up behind an outage would all land at its end. */
  private heartbeat(): Promise<void> {
    this.heartbeatInFlight ??= this.extendLeases()
      .finally(() => (this.heartbeatInFlight = undefined))
      .then((stillWaiting) => {
        // SURE LEASE: a run asked during this one, or one it beat still waits (its answer came
        // too late to make the lease sure): the next is sent now, not a beat from now. A failed
        // one is retried on its own backoff instead.
        const again = this.beatAgain;
        this.beatAgain = false;
        if (this.running && (again || stillWaiting)) void this.heartbeat();
      });
    return this.heartbeatInFlight;
  }

  /**
   * One heartbeat of the running jobs. True when it was answered and a run it beat still waits
   * for its lease to be sure (SURE LEASE); false otherwise, a failure included.
   */
  private async extendLeases(): Promise<boolean> {
    // Aborted runs (timeout, cancel, shutdown) keep their lease until their final write lands;
    // only a run whose lease is already lost is left out.
    const waiting = this.o.confirmations;
    const jobs = [...this.o.running.values()].filter(
      (j) => j.abortReason !== 'lease-lost' && (!j.holding || j.wakeWaits || waiting.has(j)),
    );
    if (jobs.length === 0) return false;
    const sentAt = performance.now();
    try {
      const states = await this.o.store.heartbeat(
        this.o.queue,
        jobs.map((j) => ({ id: j.id, token: j.token })),
        this.o.leaseMs,
      );
      this.heartbeatOutage.recovered();
      states.forEach((s, i) => {
        const job = jobs[i]!;
        // A run whose ending write is queued or in flight: that write may have landed before
        // this heartbeat (its ending clears the lease), so 'lost' says nothing yet. The write's
        // own answer decides: a refusal reports the lease lost (CommitPump.committed).
        if (s === 'lost') {
          if (!job.released) this.o.onLeaseLost(job.id, job.token, 'heartbeat');
          return;
        }
        // A cancel first: a start waiting for this answer never comes then.
        if (s === 'cancel') job.abort('cancel', 'job was cancelled');
        job.leaseRenewed(sentAt + this.o.leaseMs);
      });
      return waiting.size > 0 && jobs.some((j) => waiting.has(j));
    } catch (err) {
      // A temporary error is retried sooner than the next beat, so leases are renewed as soon
      // as Redis takes writes again (before they can expire, where possible).
      if (callErrorKind(err) !== 'transient') {
        this.o.log.error({ err }, 'heartbeat refused by Redis');
        return false;
      }
      this.heartbeatOutage.failed(err);
      if (this.timers.length > 0) {
        clearTimeout(this.heartbeatRetry);
        const cap = Math.min(1000, this.o.heartbeatMs / 2);
        this.heartbeatRetry = setTimeout(
          () => void this.heartbeat(),
          backoffMs(this.heartbeatOutage.consecutiveFailures, cap),
        );
        this.heartbeatRetry.unref();
      }
      return false;
    }
  }

  /** One reap, then the timer for the next (REAPING: the only place either is started). */
  private async reap(): Promise<void> {
    let sleepMs = this.o.reaperIntervalMs;
    try {
      if (this.heartbeatOutage.failing) {
        await this.heartbeat();
        if (this.heartbeatOutage.failing) return;
      }
      const r = await this.o.store.reap(this.o.queue, { maxLeaseRequeues: this.o.maxLeaseRequeues });
      await this.o.outbox.relay();
      this.reaperOutage.recovered();
      if (r.nextDueMs !== undefined)
        sleepMs = Math.max(MIN_REAP_GAP_MS, Math.min(sleepMs, r.nextDueMs + REAP_SLACK_MS));
      if (r.requeued.length > 0) this.o.onRequeued?.(r.requeued.length);
      if (r.requeued.length || r.failed.length)
        this.o.log.warn({ requeued: r.requeued, failed: r.failed }, 'reaped expired leases');
    } catch (err) {
      if (callErrorKind(err) === 'transient') this.reaperOutage.failed(err);
      else this.o.log.error({ err }, 'reaper call refused by Redis');
    } finally {
      if (this.running) {
        // One chain even across a stop and start with a reap in flight: the later timer wins.
        clearTimeout(this.reapTimer);
        this.reapTimer = setTimeout(() => void this.reap(), sleepMs);
        this.reapTimer.unref();
      }
    }
  }
}
