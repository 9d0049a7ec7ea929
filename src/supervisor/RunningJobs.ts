// The supervisor's running jobs: each claimed run's start and end (its slot, its log lines, its
// observer watch), the abort of a run whose lease is lost, and the shutdown's grace period.
//
// Invariants:
//   THE FENCE  a job's lease MUST be held for every write. Writes are fenced in Redis by the
//              lease token; a run whose lease is reported lost (refused write, heartbeat) is
//              aborted and never written again. A newer run of the same job is not touched.
//   SLOTS      `running` holds one run per job id; a run replaced by a new claim of its job, or
//              ended, leaves the pump's slot count (`runEnded`) exactly once. A run is known by
//              its token: a replaced run is aborted ('lease-lost'), and a refused write or a lost
//              heartbeat aborts only the run whose token it carried.
//   HANDED BACK  a stop hands every HELD run (THE EARLY LEASE, HeldJobs.ts) back at once, not
//              after the grace period: it is aborted 'shutdown', which its run writes as a park
//              at its wake time (pipeline/heldRun.ts), so it runs once, when due, wherever. So is
//              one a claim in flight at the stop brings in.

import type { Logger } from 'pino';
import type { ClaimedJob } from '../store/types.js';
import type { Registry } from '../runtime/registry.js';
import { ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptInfo, JobObserver } from '../runtime/JobObserver.js';
import type { CommitPump } from './CommitPump.js';
import type { StopResult } from './supervisorOptions.js';
import { outsideStrayScope, runInStrayScope, type StrayScope } from './strayErrors.js';
import { IdTable } from './IdTable.js';
import { DeadlineBound } from '../runtime/DeadlineBound.js';
import { LeaseConfirmations } from '../runtime/LeaseConfirmations.js';

/** How the worker's log names the write that ended a run. */
const ENDINGS: Record<string, string> = {
  done: 'done',
  fail: 'failed',
  retry: 'failed, retry scheduled',
  cancelled: 'cancelled',
  requeue: 'requeued',
  park: 'parked',
  broken: 'set aside as broken',
};

export interface RunningJobsOptions {
  readonly queue: string;
  readonly registry: Registry;
  readonly log: Logger;
  /** The pump of the current start() (a fresh one for each). */
  pump(): CommitPump;
  /** Every observer in one, undefined: none (set by start()). */
  observer(): JobObserver | undefined;
  /** A job with hooks started: its events are to be told now (the webhook dispatcher's poke). */
  hooksStarted(): void;
  /** Runs a claimed job to its ending write. */
  run(job: ActiveJob): Promise<void>;
  /** Run each attempt in a stray-error scope naming it (strayErrors.ts). */
  readonly isolateStrayErrors: boolean;
}

export class RunningJobs {
  /** One run per job id (SLOTS). An IdTable, not a Map: its entries churn (IdTable.ts says why). */
  readonly running = new IdTable<ActiveJob>();
  /** THE BOUND of the running jobs' deadlines (runtime/DeadlineBound.ts), read by LeaseKeeper's sweep. */
  readonly deadlines = new DeadlineBound();
  /** The runs waiting for a heartbeat to make their lease sure (SURE LEASE), beaten by LeaseKeeper. */
  readonly confirmations = new LeaseConfirmations();
  private drained: (() => void) | undefined;
  /** A stop began (HANDED BACK). */
  private stopping = false;
  /** While stop() waits out its grace period: ends the grace `ms` from now, if that is sooner. */
  private shortenGraceTo: ((ms: number) => void) | undefined;

  constructor(private readonly o: RunningJobsOptions) {}

  get size(): number {
    return this.running.size;
  }

  /** `leaseSureUntil`: until when the claim's lease is certainly this run's (ActiveJob.leaseSureUntil). */
  start(c: ClaimedJob, leaseSureUntil: number): void {
    const { log } = this.o;
    const pump = this.o.pump();
    const isolate = this.o.isolateStrayErrors;
    // The pump's timers and callbacks serve every job: they MUST NOT run in the scope of the job
    // whose write happened to start them (a stray error there would fail that job).
    const job = new ActiveJob(
      c,
      isolate
        ? {
            queue: pump.queue,
            write: (op, j) => outsideStrayScope(() => pump.write(op, j)),
            woke: (j) => outsideStrayScope(() => pump.woke(j)),
            passWake: (w) => pump.passWake(w, true),
          }
        : pump,
      this.deadlines,
      this.confirmations,
      leaseSureUntil,
    );
    // The same job claimed again by this worker: the old run's lease is gone (its event loop
    // stalled past it, and the reaper requeued it). Replaced here, it would leave the running
    // set with no heartbeat and no deadline, and go on working: it MUST be aborted (unless it
    // already queued its final write), and its slot accounting ends here.
    const old = this.running.get(c.id);
    if (old) {
      if (!old.released) old.abort('lease-lost', 'lease lost (the job was claimed again)');
      pump.runEnded(old);
    }
    this.running.set(c.id, job);
    // One line per job start and end at info (the CLI worker's level; the library's default,
    // warn, skips both without building them).
    const logJobs = log.isLevelEnabled('info');
    const startedAt = logJobs ? performance.now() : 0;
    if (logJobs)
      log.info(
        { jobId: c.id, machine: c.machine, attempt: c.attempt },
        `job ${c.id} (${c.machine}) started${c.attempt > 1 ? `, attempt ${c.attempt}` : ''}`,
      );
    // A job with hooks: its events are to be told now, not at the dispatcher's next idle look.
    if (c.options?.includes('"webhook"')) this.o.hooksStarted();
    const observer = this.o.observer();
    if (observer !== undefined) job.watch = observer.attemptStarted(this.attemptInfo(c));
    // One reaction for both outcomes (not .catch().finally(): two more promises and three more
    // closures a job, on the hot path).
    const afterRun = () => {
      // A run that lost its lease before its ending write: its watch ends here.
      job.endWatch('lease-lost');
      if (logJobs) {
        const ms = Math.round(performance.now() - startedAt);
        const outcome = ENDINGS[job.ending ?? ''] ?? job.abortReason ?? 'stopped';
        // The run's duration goes after its first word: "failed in 22 ms, retry scheduled".
        const [ended, ...then] = outcome.split(', ');
        log.info(
          { jobId: c.id, machine: c.machine, outcome, ms },
          `job ${c.id} (${c.machine}) ${[`${ended} in ${ms} ms`, ...then].join(', ')}`,
        );
      }
      if (this.running.get(c.id) === job) {
        this.running.delete(c.id);
        this.o.pump().runEnded(job);
      }
      if (this.running.size === 0) this.drained?.();
      this.o.pump().kick();
    };
    void (isolate ? runInStrayScope(this.strayScope(job), () => this.o.run(job)) : this.o.run(job)).then(
      afterRun,
      (err: unknown) => {
        log.error({ err, jobId: c.id }, 'job runner failed');
        afterRun();
      },
    );
    if (this.stopping && job.holding) job.abort('shutdown', 'supervisor is shutting down');
  }

  /** Names the attempt for its stray errors, and fails it with one while it still runs. */
  private strayScope(job: ActiveJob): StrayScope {
    return {
      jobId: job.id,
      attempt: job.claimed.attempt,
      log: this.o.log,
      fail: (err) => {
        if (job.released || job.abortReason !== null || this.running.get(job.id) !== job) return false;
        job.abort('failed', err.message, err);
        return true;
      },
    };
  }

  private attemptInfo(c: ClaimedJob): AttemptInfo {
    const m = c.machine;
    const { registry } = this.o;
    return {
      id: c.id,
      queue: this.o.queue,
      machine: m,
      definition: m === undefined ? undefined : (registry.get(m, c.version) ?? registry.latest(m)),
      attempt: c.attempt,
      status: c.status,
      options: c.options,
    };
  }

  /** Aborts the run that held `token`; a newer run of the same job (claimed again) is not touched. */
  leaseLost(id: string, token: string, why: string): void {
    const job = this.running.get(id);
    if (job && job.token === token && !job.abortReason) {
      this.o.log.warn({ jobId: id, why }, 'lease lost; dropping job');
      job.abort('lease-lost', `lease lost (${why})`);
    }
  }

  /**
   * Lets the running jobs finish for `graceMs`, then aborts the rest with 'shutdown' (their
   * runners requeue them at once) and waits up to 5 s more for their last writes.
   */
  async drain(graceMs: number): Promise<StopResult> {
    let forced = false;
    let requeued = 0;
    this.stopping = true;
    for (const job of this.running.values())
      if (job.holding) job.abort('shutdown', 'supervisor is shutting down (a held job goes back parked)');
    if (this.running.size > 0) {
      const drained = new Promise<void>((r) => (this.drained = r));
      // The grace timers keep the process alive (a stop being awaited must end, even on a
      // store holding no socket: MemoryStore) and are cleared as soon as the jobs drain.
      const timers: NodeJS.Timeout[] = [];
      const grace = new Promise<'grace'>((resolve) => {
        this.shortenGraceTo = (ms) => void timers.push(setTimeout(() => resolve('grace'), ms));
      });
      this.shortenGraceTo!(graceMs);
      const ended = await Promise.race([drained, grace]);
      this.shortenGraceTo = undefined;
      if (ended === 'grace' && this.running.size > 0) {
        forced = true;
        requeued = this.running.size;
        for (const job of this.running.values()) job.abort('shutdown', 'supervisor is shutting down');
        await Promise.race([drained, new Promise((r) => timers.push(setTimeout(r, 5_000)))]);
      }
      for (const t of timers) clearTimeout(t);
    }
    return { forced, requeued };
  }

  /** A second stop() during drain(): its grace ends `ms` from now, if that is sooner. */
  shortenGrace(ms: number): void {
    this.shortenGraceTo?.(ms);
  }

  /** After the stop: no one waits for the drain any more. */
  forgetDrain(): void {
    this.drained = undefined;
    // The stop is over: a start() again runs held jobs as held (HANDED BACK was this stop's).
    this.stopping = false;
  }
}
