// One claimed job inside a supervisor: its lease token, its abort signal and why it fired,
// and its progress (coalesced: ProgressWrites.ts). Everything a job's run needs from the
// supervisor goes through here.

import type { ClaimedJob, CommitOp } from '../store/types.js';
import { toStoredJson } from './storedJson.js';
import type { AttemptEnd, AttemptWatch } from './attemptWatch.js';
import { MachinistError } from '../errors.js';
import { CODE } from '../errorCodes.js';
import { DeadlineBound } from './DeadlineBound.js';
import { NO_CONFIRMATIONS, type LeaseConfirmations } from './LeaseConfirmations.js';
import { ProgressWrites } from './ProgressWrites.js';

/**
 * Why a running job's signal fired. Each has its own ending (settle.ts); 'failed': the run
 * itself failed (its snapshot cannot be stored, or its code raised a stray error) and ends as a
 * failure with that error.
 */
export type AbortReason = 'timeout' | 'stalled' | 'cancel' | 'lease-lost' | 'shutdown' | 'failed';

export class AbortedError extends MachinistError {
  constructor(
    readonly reason: AbortReason,
    message: string,
  ) {
    super(CODE.ABORTED, message);
  }
}

/** A held run whose due timer waits its turn (supervisor/WakeGate.ts: the driver that armed it). */
export interface DeferredWake {
  /** Its turn came: it takes its timer's transition now. */
  wakeNow(): void;
}

export interface JobHost {
  queue: string;
  /** Queues a fenced write; resolves true when written, false when the lease was lost. */
  write(op: CommitOp, job?: ActiveJob): Promise<boolean>;
  /** THE EARLY LEASE: a held job's timer is due; it runs now, in a slot (CommitPump.woke). */
  woke?(job: ActiveJob): void;
  /** THE GATE (supervisor/WakeGate.ts): whether a held run's due timer goes on now; false: `wake`
   * is called when its turn comes. Absent: always now. */
  passWake?(wake: DeferredWake): boolean;
}

/**
 * What a pipeline run (pipelineRun.ts) answers for its job. Methods of the run, not closures of
 * its own: a held job (THE EARLY LEASE) keeps them for minutes, 25k of them a worker.
 */
export interface JobRun {
  /** An event was sent to the job while it runs (once the run has its outcome: nothing). */
  readInbox(): void;
  /** The audit entries the run holds back for its next write (AT START and log-only), taken by
   * a progress write to go ahead of its own entry. */
  takeHeld(): string[];
}

/** Told once when its job is aborted (ActiveJob.onAbort): a driver, not a closure of its own. */
export interface AbortListener {
  aborted(): void;
}

/** How each ending write ends an attempt, for observers. */
const ENDINGS: Readonly<Record<Exclude<CommitOp['kind'], 'checkpoint'>, AttemptEnd>> = {
  done: 'done',
  fail: 'failed',
  retry: 'retry',
  cancelled: 'cancelled',
  requeue: 'requeued',
  park: 'parked',
  broken: 'broken',
};

export class ActiveJob {
  readonly id: string;
  readonly token: string;
  abortReason: AbortReason | null = null;
  /** The abort's words: the message of its AbortedError, made when first asked for (abortError). */
  private abortMessage = '';
  private abortErr: Error | null = null;
  /** When the attempt times out (performance.now() ms: a duration, so never the wall clock;
   * 0 = no deadline). The supervisor's deadline sweep aborts the job with 'timeout' once it
   * passes: no timer per job. */
  deadline = 0;
  timeoutMs = 0;
  /** The definition's `stallTimeoutMs` (0: none), and when the attempt stalls (performance.now()
   * ms, 0 = never) unless it reports progress or its machine enters a state before: the same
   * sweep aborts it with 'stalled'. Each report moves it on (one subtraction, no timer). */
  stallMs = 0;
  stallDeadline = 0;
  /** The kind of the write that ended this run (done, fail, retry, park, ...), for the worker's log. */
  ending: Exclude<CommitOp['kind'], 'checkpoint'> | undefined;
  /** Set by the supervisor when the job queued the write that ends its run (its slot is free). */
  released = false;
  /**
   * THE EARLY LEASE: claimed before its timer was due (ClaimedJob.holdUntil) and waiting for it
   * in memory: it takes no slot of the supervisor's, and its lease, taken to cover the wait,
   * needs no heartbeat (LeaseKeeper.ts). Cleared once, by the supervisor (HeldJobs.end),
   * when its timer is due (wake()), it queues its ending write, or its run ends.
   */
  holding: boolean;
  /**
   * Until when this run's lease is certainly its own (performance.now() ms): from the send of the
   * last call that set or renewed it (its claim, a heartbeat that found it held) for as long as
   * that call leased it. Redis ran the call after it was sent, so the lease ends no sooner: the
   * two clocks' rates agree, their readings need not (SURE LEASE, leaseReady).
   */
  leaseSureUntil: number;
  /**
   * THE GATE: a held run whose timer is due waits its turn (passWake): its lease, taken to cover
   * the hold, is beaten from then on (LeaseKeeper.ts), as a woken run's is.
   */
  wakeWaits = false;
  /** A start waiting for a heartbeat to make the lease sure again (leaseReady). */
  private leaseWait:
    { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | undefined;
  /** Created on first use: most jobs never look at their signal. */
  private controller: AbortController | undefined;
  private raceReject: ((err: unknown) => void) | undefined;
  private progressFn: ((value: unknown) => void) | undefined;
  /** Set by a pipeline run: told of events sent to the job while it runs, and asked for the
   * audit entries it holds back (JobRun). */
  pipeline: JobRun | undefined;
  /** Set by a pipeline run: called when a fan-out of this job may have completed. */
  onFanIn: (() => void) | undefined;
  /** Set by a pipeline run's driver: told once when the job is aborted (as its signal's
   * listeners are, without making the signal: an AbortController per resume is ~2% of its CPU). */
  onAbort: AbortListener | undefined;
  /** Notices that came before the run installed its handlers (kept, not lost). */
  inboxSignal = false;
  fanInSignal = false;
  /**
   * The machine version of the snapshots this run writes when it is not the record's (a
   * pipeline migrated to a newer version): every op that stores a snapshot carries it, so the
   * record's version follows its snapshot (CommitOp `version`).
   */
  snapshotVersion: number | undefined;
  /** The lifecycle status last written (what a progress checkpoint keeps). */
  status: 'loading' | 'working';
  /** Set by the supervisor when an observer watches this attempt (JobObserver.ts). */
  watch: AttemptWatch | undefined;
  /** Its progress reports' writes, made at the first report. */
  private progressWrites: ProgressWrites | undefined;
  private finished = false;

  constructor(
    readonly claimed: ClaimedJob,
    private readonly host: JobHost,
    /** The supervisor's bound of its jobs' deadlines (THE BOUND): each deadline set is noted there. */
    private readonly deadlines: DeadlineBound = new DeadlineBound(),
    /** The queue's runs waiting for a renewal of their lease (SURE LEASE), and how they ask. */
    private readonly confirmations: LeaseConfirmations = NO_CONFIRMATIONS,
    /** `leaseSureUntil` as the claim left it (the supervisor's; a job made elsewhere: forever). */
    leaseSureUntil = Infinity,
  ) {
    this.leaseSureUntil = leaseSureUntil;
    this.id = claimed.id;
    this.token = claimed.token;
    this.status = claimed.status === 'loading' ? 'loading' : 'working';
    this.holding = claimed.holdUntil !== undefined;
  }

  /** The attempt times out at `at` (performance.now() ms; 0: never). */
  setDeadline(at: number): void {
    this.deadline = at;
    if (at !== 0) this.deadlines.note(at);
  }

  /** The attempt stalls `stallMs` from now unless it reports progress or enters a state first. */
  armStall(stallMs: number): void {
    this.stallMs = stallMs;
    if (stallMs !== 0) this.stallFromNow();
  }

  /** The stall deadline `stallMs` from now (a report, a state, the arming), noted (THE BOUND). */
  private stallFromNow(): void {
    this.stallDeadline = performance.now() + this.stallMs;
    this.deadlines.note(this.stallDeadline);
  }

  /**
   * THE GATE (supervisor/WakeGate.ts): whether this held run's due timer takes its transition
   * now; false: `wake.wakeNow()` is called when its turn comes. A run not held goes on at once.
   */
  passWake(wake: DeferredWake): boolean {
    if (!this.holding || this.host.passWake === undefined || this.host.passWake(wake)) return true;
    this.wakeWaits = true;
    return false;
  }

  /** THE EARLY LEASE: the held job's timer is due: it runs in a slot from now on. */
  wake(): void {
    if (this.holding) this.host.woke?.(this);
  }

  /**
   * SURE LEASE: the job's own code (a `load`, a `work`, a pipeline step) starts only while this
   * run's lease is certainly its own (`leaseSureUntil`), and the run is not aborted. Undefined
   * when so: the start goes ahead at once (one clock read; a run whose heartbeats answer starts
   * so every time). Else a promise that resolves once a heartbeat (one is sent at once) has made
   * the lease sure again, and rejects with the abort once the run is aborted (its lease lost, a
   * cancel, a stop): the start that waits never happens then. Why: past that time the reaper may
   * have requeued the job and another worker run it past this step's checkpoint
   * (LeaseConfirmations.ts).
   */
  leaseReady(): Promise<void> | undefined {
    if (this.abortReason === null && performance.now() < this.leaseSureUntil) return undefined;
    if (this.abortReason !== null) return Promise.reject(this.abortError);
    if (this.leaseWait === undefined) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.leaseWait = { promise, resolve, reject };
      this.confirmations.want(this);
    }
    return this.leaseWait.promise;
  }

  /**
   * A heartbeat found the lease still this run's: sure until `sureUntil` (its send plus the
   * lease). A start waiting goes ahead when that is still ahead (else it waits for the next).
   */
  leaseRenewed(sureUntil: number): void {
    if (sureUntil > this.leaseSureUntil) this.leaseSureUntil = sureUntil;
    if (this.leaseWait === undefined || performance.now() >= this.leaseSureUntil) return;
    this.endLeaseWait()!.resolve();
  }

  /** The start waiting for a sure lease, if any: it waits no more (its caller settles it). */
  private endLeaseWait(): { resolve: () => void; reject: (e: unknown) => void } | undefined {
    const wait = this.leaseWait;
    if (wait === undefined) return undefined;
    this.leaseWait = undefined;
    this.confirmations.done(this);
    return wait;
  }

  /**
   * The error the signal carries once aborted (an AbortedError, or the error that failed it).
   * Made when first asked for: a stop aborts every run, 25k held ones a worker, and most are
   * handed back parked with nothing reading it (an Error's stack is ~6 us to capture).
   */
  get abortError(): Error | null {
    if (this.abortReason === null) return null;
    return (this.abortErr ??= new AbortedError(this.abortReason, this.abortMessage));
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortError) this.controller.abort(this.abortError);
    }
    return this.controller.signal;
  }

  /** `error`: what the signal carries and the attempt fails with, when not an AbortedError (a
   * stray error of the job's own code: supervisor/strayErrors.ts). */
  abort(reason: AbortReason, message: string, error?: Error): void {
    if (this.abortReason) return;
    this.abortReason = reason;
    this.abortMessage = message;
    if (error) this.abortErr = error;
    this.controller?.abort(this.abortError);
    const onAbort = this.onAbort;
    this.onAbort = undefined;
    onAbort?.aborted();
    const reject = this.raceReject;
    this.raceReject = undefined;
    reject?.(this.abortError);
    this.endLeaseWait()?.reject(this.abortError);
  }

  /**
   * Resolves with the work's promise, or rejects as soon as the job is aborted (work that
   * ignores its signal is abandoned, not awaited: the attempt's ending must not depend on it).
   * No AbortSignal listener is needed: one race at a time per job.
   */
  race<T>(work: Promise<T> | T): Promise<T> {
    if (this.abortReason !== null) return Promise.reject(this.abortError);
    if (!(work instanceof Promise)) return Promise.resolve(work);
    return new Promise<T>((resolve, reject) => {
      this.raceReject = reject;
      // Only its own: a race abandoned (a compiled step whose state an event left) may settle
      // after the next race began, whose abort it must not take away.
      work.then(
        (v) => {
          if (this.raceReject === reject) this.raceReject = undefined;
          resolve(v);
        },
        (e) => {
          if (this.raceReject === reject) this.raceReject = undefined;
          reject(e);
        },
      );
    });
  }

  write(op: CommitOp): Promise<boolean> {
    if (op.kind !== 'checkpoint') this.ending = op.kind;
    if (this.snapshotVersion !== undefined && 'snapshot' in op && op.snapshot)
      op = { ...op, version: this.snapshotVersion };
    const written = this.host.write(op, this);
    if (this.watch !== undefined && op.kind !== 'checkpoint') {
      const how = ENDINGS[op.kind];
      const final = 'state' in op ? op.state : undefined;
      // Registered before the runner awaits the write: the watch ends first.
      written.then(
        (ok) => this.endWatch(ok ? how : 'lease-lost', final),
        () => this.endWatch('lease-lost'),
      );
    }
    return written;
  }

  /** The machine settled in a state (`valueText`: its value as JSON): told to the watch, if any. */
  observeState(valueText: string): void {
    if (this.stallMs !== 0) this.stallFromNow();
    if (this.watch === undefined) return;
    try {
      this.watch.state(valueText);
    } catch {
      // An observer MUST NOT fail the job it watches.
    }
  }

  /** The watch's active trace context (JobObserver.ts), if any: what the attempt starts hangs under it. */
  traceContext(): unknown {
    try {
      return this.watch?.trace?.();
    } catch {
      return undefined; // as above
    }
  }

  /** Ends the watch, once: by the ending write's outcome, or by the run leaving without one. */
  endWatch(how: AttemptEnd, finalState?: string): void {
    const w = this.watch;
    if (w === undefined) return;
    this.watch = undefined;
    try {
      w.end(how, finalState);
    } catch {
      // As above: observing is never allowed to break a run.
    }
  }

  /**
   * Coalesces progress (ProgressWrites.ts): the first report is written at once, later ones at
   * most every 200 ms.
   * A value JSON cannot hold throws UnserializableSnapshotError to the caller, at the call (a
   * dropped report would hide the bug; a throw later, in the timer, would kill the worker).
   */
  get progress(): (value: unknown) => void {
    return (this.progressFn ??= (value) => this.reportProgress(value));
  }

  private reportProgress(value: unknown): void {
    if (this.finished) return;
    if (this.stallMs !== 0) this.stallFromNow();
    const text = toStoredJson(value ?? null, 'progress');
    (this.progressWrites ??= new ProgressWrites(this)).report(text);
  }

  /**
   * No more progress after the final write. Called just before it: a report still waiting for
   * its coalescing window is written first (queued ahead of the final write, so it lands before
   * it), so the stored progress is the last one reported. A lost lease writes nothing.
   */
  end(): void {
    if (this.finished) return;
    this.progressWrites?.end(this.abortReason !== 'lease-lost');
    this.finished = true;
    this.stallDeadline = 0;
    // A start still waiting for its lease (a step whose state was left meanwhile) never comes.
    this.endLeaseWait();
  }
}
