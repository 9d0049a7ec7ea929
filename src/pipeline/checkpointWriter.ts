// A pipeline run's checkpoints (pipelineRun.ts), whichever driver runs its machine (XState actors
// or a compiled step table): the audit entries waiting for the next write, and
// a write skipped when neither the stored snapshot nor the log changed since the last one.
// Writes are not awaited: a crash before one lands only re-runs the step it covered, and a
// refused one (lease lost) aborts the run through the supervisor.
//
// Log-only entries: audit entries with no move of the machine (a run's `resumed`, an event
// ignored), and a fresh run's first checkpoint (AT START, which the run core decides), are held
// (`hold`): they wait up to LOG_ONLY_MS for the next write to carry them (a resumed job whose
// timer is due at once writes its ending alone, not a checkpoint of what is stored already
// first), and are written then if nothing did (the timer marks the run dirty; its flush writes
// them). A held run's entries (THE EARLY LEASE, heldRun.ts) wait past its wake time: their timer
// is armed once its hold ends (`armHold`). A progress write meanwhile takes the held entries
// first (`takeHeld`), so the log reads as if they had been written. The hold's state is kept
// here, on the run's writer: no object of its own per run.

import type { ActiveJob } from '../runtime/ActiveJob.js';
import { ContextLog } from './contextLog.js';
import { pipelineSnapshotText } from './pipelineEnding.js';

/** What a checkpoint of `{w, t, h?}` stores, as one text: equal keys store the same. */
export const checkpointKey = (wText: string, tText: string, hText = ''): string =>
  `${wText}|${tText}|${hText}`;

/** How long audit entries with no move of the machine wait for a write to carry them. */
export const LOG_ONLY_MS = 100;

/** What a hold's timer marks dirty when it fires (the run: its flush writes what was held). */
type DirtyRun = { markDirty(): void };

export class CheckpointWriter {
  /** Audit entries for the next write (a checkpoint, or the run's ending). */
  pending: string[] = [];
  /** The inbox position the last write stored (a read past it is not log-only). */
  writtenInbox: number;
  /** The hold's timer fired: the next checkpoint is written, log-only or not. */
  logOnlyDue = false;
  /** A log-only checkpoint is held until this time (Redis ms; 0: none is), when its timer writes
   * it, if nothing did (LOG_ONLY_MS, and a held run's hold: hold). */
  private logOnlyAt = 0;
  /** That timer (a held run's is armed only once its hold has ended: armHold). */
  private logOnlyTimer: NodeJS.Timeout | undefined;
  /** How many of the pending entries (the first) a hold kept back, for a progress write to take. */
  private heldCount = 0;
  /** The state value (JSON) the last checkpoint stored; '' before the first. */
  lastState = '';
  /** The held events (JSON) the last checkpoint stored, or the claimed snapshot held ('' none). */
  lastHeld: string;
  /** The state value (JSON) last logged: states are logged as they are entered, not as written. */
  private loggedState = '';
  /** What of the context the log holds: each `state` entry carries what changed in it. */
  private readonly contextLog = new ContextLog();

  /** `<machine snapshot JSON>|<timers JSON>|<held JSON>` of what is stored, once known. */
  private key: string | undefined;

  /**
   * `claimed.storedKey()`: the machine's part of that key for what the run was claimed with
   * (MachineDriver.storedKey; '': none), asked for when a checkpoint first compares (a resume
   * that writes only its ending never needs it); `storedHeld`: the held events it was claimed with.
   */
  constructor(
    private readonly job: ActiveJob,
    private readonly claimed: { storedKey(): string },
    storedHeld = '',
  ) {
    this.lastHeld = storedHeld;
    this.writtenInbox = job.claimed.inbox;
  }

  private get lastKey(): string {
    if (this.key !== undefined) return this.key;
    // Before the first write: what was claimed (lastHeld is still the claimed snapshot's then).
    const stored = this.claimed.storedKey();
    return (this.key = stored === '' ? '' : `${stored}|${this.lastHeld}`);
  }

  /**
   * Logs a `state` entry for a state the machine settled in, unless it is the one logged last.
   * Called at each settled macrostep: several fast steps share one write, and the log still
   * names every state they passed through, in order, each with the context it was entered with
   * (contextLog.ts: only what changed, large values noted, not kept).
   */
  entered(stateText: string, context: unknown): void {
    if (stateText === this.loggedState) return;
    this.loggedState = stateText;
    this.job.observeState(stateText);
    this.pending.push(`{"type":"state",${this.contextLog.fields(context)}"state":${stateText}}`);
  }

  /** True when a write of `key` (checkpointKey) would carry only audit entries: what is stored is the same. */
  logOnly(key: string): boolean {
    return this.pending.length > 0 && key === this.lastKey;
  }

  /**
   * Writes `{w, t, h?}` (`key`: their checkpointKey) with the pending entries (and the state's,
   * if not logged yet, with `context`: the machine's now).
   */
  write(
    key: string,
    wText: string,
    tText: string,
    stateText: string,
    context: unknown,
    inboxConsumed: number,
    hText = '',
  ): void {
    // A write carries what a hold kept back: the hold is over.
    clearTimeout(this.logOnlyTimer);
    this.logOnlyTimer = undefined;
    this.logOnlyAt = 0;
    this.heldCount = 0;
    this.logOnlyDue = false;
    this.writtenInbox = inboxConsumed;
    if (key === this.lastKey && this.pending.length === 0) return;
    this.key = key;
    this.entered(stateText, context);
    const log = this.pending;
    this.pending = [];
    this.lastState = stateText;
    this.lastHeld = hText;
    void this.job.write({
      kind: 'checkpoint',
      id: this.job.id,
      token: this.job.token,
      status: 'working',
      snapshot: pipelineSnapshotText(wText, tText, hText),
      state: stateText,
      // None consumed: no `io` written (a claim reads an absent one as 0).
      inboxConsumed: inboxConsumed || undefined,
      log,
    });
  }

  /** Entries are held back (log-only, AT START) until the next write or their timer. */
  get holding(): boolean {
    return this.logOnlyAt !== 0;
  }

  /**
   * The pending entries wait for the next write, or LOG_ONLY_MS (then `run` is marked
   * dirty: its flush writes them). `left`: how long the run is still held (HeldRun.left; 0: not
   * held); `now`: Redis time, as `left`.
   */
  hold(left: number, now: () => number, run: DirtyRun): void {
    this.heldCount = this.pending.length;
    // A held run's entries (its `resumed`) wait past its wake time: its ending carries them, as
    // a resume due at once has its ending carry them, with no write of their own before it.
    // Its timer is armed once its hold ends (armHold): until then it keeps only its machine's.
    if (this.logOnlyAt === 0) this.logOnlyAt = now() + LOG_ONLY_MS + left;
    if (left === 0) this.armHold(now, run);
  }

  /** The log-only timer, for logOnlyAt (armed once; no closure of its own: it carries the
   * writer and the run). */
  armHold(now: () => number, run: DirtyRun): void {
    this.logOnlyTimer ??= setTimeout(
      CheckpointWriter.holdDue,
      Math.max(0, this.logOnlyAt - now()),
      this,
      run,
    );
  }

  private static holdDue(this: void, writer: CheckpointWriter, run: DirtyRun): void {
    writer.logOnlyDue = true;
    run.markDirty();
  }

  /**
   * JobRun.takeHeld: the entries a hold kept back (log-only, AT START), taken out for a progress
   * write to carry ahead of its own, where they would have been had they been written then
   * (entries logged since wait for their own write, as they would have). Also once the run has
   * its outcome (a progress report still waiting is written ahead of the ending, which takes the
   * rest: in place, the ending holds this list). What they would have been written with (the
   * snapshot) waits on: its write comes at the next move or LOG_ONLY_MS on, as before.
   */
  takeHeld(): string[] {
    const n = this.logOnlyAt === 0 ? 0 : this.heldCount;
    this.heldCount = 0;
    return n === 0 ? [] : this.pending.splice(0, n);
  }

  /** The run's outcome is known: the hold's timer neither fires nor keeps the run reachable. */
  stop(): void {
    clearTimeout(this.logOnlyTimer);
  }
}
