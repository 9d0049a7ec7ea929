// A pump's stale claims: a claim answered too late to trust its leases, whose jobs wait in their
// slots for one heartbeat with their tokens to say which are still this worker's. CommitClaims.ts
// applies the claims' answers and hands jobs back; this file says which claim is stale and what
// becomes of its jobs.
//
// Invariant:
//   STALE CLAIM   a claim answered more than half a lease after it was sent is not run on its
//                 word: its jobs run only once a heartbeat with their tokens, itself answered
//                 within half a lease, has renewed their leases (`confirm`). Why: an answer
//                 handled that late (this process was frozen, or starved, with the reply waiting
//                 in its socket) may hold leases that passed meanwhile, their jobs requeued by a
//                 reaper and run by another worker past checkpoints this claim's snapshot
//                 predates; running it would repeat completed steps (chaos T3).

import type { Logger } from 'pino';
import type { ClaimedJob, LeaseState, Store } from '../store/types.js';

/** Why a claimed job goes back unrun (the requeue's log entry). */
export type HandBackReason = 'shutdown' | 'stale claim';

export interface StaleClaimsOptions {
  store: Pick<Store, 'heartbeat'>;
  queue: string;
  leaseMs: number;
  log: Logger;
  /** Starts a job whose lease the heartbeat renewed, sure until `leaseSureUntil` (SURE LEASE). */
  startJob: (c: ClaimedJob, leaseSureUntil: number) => void;
  /** Hands a claimed job back unrun (a requeue, fenced by its token). */
  handBack: (c: ClaimedJob, reason: HandBackReason) => void;
  /** Whether the pump is stopping (STOPPING: nothing confirmed then runs). */
  stopping: () => boolean;
  /** A confirmation ended: its slots are free or running, and the pump looks again. */
  settled: () => void;
}

export class StaleClaims {
  /** Heartbeats in flight that confirm a late claim's leases (the pump's loop waits for them). */
  private confirming = 0;
  /** The jobs they confirm: each keeps its slot meanwhile (CommitClaims.slots, SLOTS). */
  private waiting = 0;

  constructor(private readonly o: StaleClaimsOptions) {}

  /** Heartbeats in flight (STOPPING: the loop ends only once none is). */
  get inFlight(): number {
    return this.confirming;
  }

  /** Slots held by jobs waiting for their confirmation. */
  get slots(): number {
    return this.waiting;
  }

  /** Whether a claim answered `tookMs` after it was sent is too late to run on its word. */
  isLate(tookMs: number): boolean {
    return tookMs > this.o.leaseMs / 2;
  }

  /**
   * The late claim's jobs keep their slots while one heartbeat with their tokens asks whether
   * their leases are still theirs. A token still on its record means no other claim took the job
   * since (a reaper's requeue empties it), so the claimed snapshot is still its latest, and the
   * heartbeat has renewed its lease from Redis's now: such a job runs, when that answer itself
   * came within half a lease. One whose token is gone is another claim's: dropped, nothing
   * written. The rest go back unrun (a cancel asked for meanwhile ends the job at its requeue). A
   * reply slow for its own sake (a snapshot of many MB) is so run after one small round trip,
   * where handing it back had it claimed, late again, without end.
   */
  confirm(jobs: ClaimedJob[], claimMs: number): void {
    const o = this.o;
    this.confirming++;
    this.waiting += jobs.length;
    const sentAt = performance.now();
    const leases = jobs.map((c) => ({ id: c.id, token: c.token }));
    const settle = (states: readonly LeaseState[] | undefined, err?: unknown): void => {
      this.confirming--;
      this.waiting -= jobs.length;
      const tookMs = performance.now() - sentAt;
      const trusted = states !== undefined && !o.stopping() && !this.isLate(tookMs);
      const ran: string[] = [];
      const gone: string[] = [];
      jobs.forEach((c, i) => {
        const state = states?.[i];
        if (state === 'lost') gone.push(c.id);
        else if (state === 'held' && trusted) {
          ran.push(c.id);
          o.startJob(c, sentAt + o.leaseMs);
        } else o.handBack(c, o.stopping() ? 'shutdown' : 'stale claim');
      });
      o.log.warn(
        {
          err,
          claimMs: Math.round(claimMs),
          confirmMs: Math.round(tookMs),
          leaseMs: o.leaseMs,
          ran,
          gone,
          handedBack: jobs.length - ran.length - gone.length,
        },
        'claim answered too late to trust its leases: ran those a heartbeat confirmed',
      );
      o.settled();
    };
    o.store.heartbeat(o.queue, leases, o.leaseMs).then(
      (states) => settle(states),
      (err: unknown) => settle(undefined, err),
    );
  }
}
