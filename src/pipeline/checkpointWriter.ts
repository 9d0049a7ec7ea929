// A pipeline run's checkpoints (pipelineRun.ts), whichever driver runs its machine (XState actors
// or a compiled step table): the audit entries waiting for the next write, and
// a write skipped when neither the stored snapshot nor the log changed since the last one.
// Writes are not awaited: a crash before one lands only re-runs the step it covered, and a
// refused one (lease lost) aborts the run through the supervisor.

import type { ActiveJob } from '../runtime/ActiveJob.js';
import { ContextLog } from './contextLog.js';
import { pipelineSnapshotText } from './pipelineEnding.js';

/** What a checkpoint of `{w, t, h?}` stores, as one text: equal keys store the same. */
export const checkpointKey = (wText: string, tText: string, hText = ''): string =>
  `${wText}|${tText}|${hText}`;

export class CheckpointWriter {
  /** Audit entries for the next write (a checkpoint, or the run's ending). */
  pending: string[] = [];
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
}
