// Runs a pipeline's machine as XState actors, for the runtime core (pipelineRun.ts): any machine.
// The actor takes its steps itself; this driver restores it from the stored snapshot (with its
// timers: timers.ts), follows its tree (actorTreeWatch.ts), reads its persisted snapshot for
// each checkpoint, and says when it may park (parkable.ts: nothing in its tree runs code).
// ABORTED: the job's abort (timeout, cancel, shutdown, lease lost) stops the actor at once, its
// persisted snapshot taken first for the ending (the state the abort found it in): an aborted
// attempt MUST NOT take anything more, neither a step's result that comes after the abort (a
// step that answers its signal with a value), nor a timer or event, nor start a next step while
// its ending is written. The compiled runner ends there too (runCompiledPipeline.ts: the step's
// race with the job's abort).

import { createActor, type AnyActor } from 'xstate';
import type { AbortListener, ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import { storedMachineJson, storedTimersJson } from './storedParts.js';
import type { InboxEvent } from '../runtime/inboxEvent.js';
import {
  MachineActionError,
  UnregisteredActorError,
  UnrestorableSnapshotError,
  UnserializableSnapshotError,
} from '../errors.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import { bindJobScope } from './jobScope.js';
import {
  TimerDueTimes,
  captureTimers,
  earliestDue,
  restoreTimers,
  timerClock,
  type StoredTimer,
} from './timers.js';
import { isParkable } from './parkable.js';
import { HeldClock } from './heldClock.js';
import { persistedJson, persistedSnapshot } from './persisted.js';
import { ResumePoint } from './resumePoint.js';
import { reconcileTimers } from './migrate.js';
import { notOffered, offerEvent } from './offerEvent.js';
import { ActorRejections } from './machineFault.js';
import type { Offered } from './heldEvents.js';
import { FanOutScope } from './fanOutScope.js';
import { ActorTreeWatch } from './actorTreeWatch.js';
import type { CheckpointParts, FailureParts, MachineDriver, Outcome, RunControl } from './machineDriver.js';

/** Where an XState run starts: the claimed snapshot's parts, revived (and migrated). */
export interface XStateStart {
  /** The machine snapshot to restore (undefined: a fresh start). */
  machine: unknown;
  timers: StoredTimer[];
  /** The snapshot's `w` and `t` as stored (`w`: what an unrestorable one keeps). */
  storedW: unknown;
  storedT: unknown;
  stored: boolean;
  /** The version the snapshot was migrated from, when it was. */
  migratedFrom?: number;
}

export class XStateDriver implements MachineDriver, AbortListener {
  private actor: AnyActor | undefined;
  private unrestorable: UnrestorableSnapshotError | undefined;
  /** A run claimed held: its actors' clock, whose timers tell it and wait their turn (heldClock.ts). */
  private heldClock: HeldClock | undefined;
  private run!: RunControl;
  private fan: FanOutScope | undefined;
  private watch!: ActorTreeWatch;
  private lastTimers: StoredTimer[];
  /** Anything in the actor tree moved since start() (AT START: atStart). */
  private moved = false;
  private readonly dueTimes: TimerDueTimes;
  private readonly resume = new ResumePoint();
  private readonly rejections = new ActorRejections();
  /** The machine as the job's abort found it (or why it has no persisted snapshot): see ABORTED.
   * Its timers too: stopping the actor cancels them, and a held run handed back parks with them. */
  private atAbort:
    { persisted: unknown; timers: StoredTimer[]; value: unknown } | { unstorable: unknown } | undefined;

  constructor(
    private readonly job: ActiveJob,
    private readonly def: PipelineDefinition,
    private readonly host: AttemptHost,
    private readonly input: unknown,
    private readonly from: XStateStart,
  ) {
    this.lastTimers = from.timers;
    this.dueTimes = new TimerDueTimes(host.latest);
  }

  storedKey(): string {
    const { from } = this;
    return from.stored ? `${JSON.stringify(from.storedW)}|${JSON.stringify(from.storedT ?? [])}` : '';
  }

  open(run: RunControl): void {
    const { job, from } = this;
    const c = job.claimed;
    this.run = run;
    if (job.holding) this.heldClock = new HeldClock(job, run);
    const actor = (this.actor = createActor(this.def.machine, {
      ...(from.machine !== undefined ? { snapshot: from.machine as any } : {}),
      input: this.input,
      clock: this.heldClock ?? timerClock,
    }));
    // XState keeps a restore that failed as an errored snapshot (and would rethrow it in a timer
    // on start): the stored snapshot names a state this machine lacks, or the like. No attempt
    // can get past it, so the job fails at once, and keeps the snapshot for a redrive.
    const restored = actor.getSnapshot() as { status?: string; error?: unknown };
    if (from.machine !== undefined && restored.status === 'error')
      throw (this.unrestorable = new UnrestorableSnapshotError(c.id, this.def.name, restored.error));
    // Every move the tree reports, and a fan-out's setup, marks the run dirty through `moved`
    // (atStart); the start's own reports are cleared once it is over (start()).
    const markDirty = () => {
      this.moved = true;
      run.markDirty();
    };
    const fan = (this.fan = new FanOutScope(job, this.host, markDirty));
    bindJobScope(actor.system, {
      jobId: c.id,
      queue: this.host.queue,
      attempt: c.attempt,
      // Made when a step first reads it: most resumes (a timer, an event) never do.
      get signal() {
        return job.signal;
      },
      progress: job.progress,
      leaseReady: () => job.leaseReady(),
      fanOut: fan.fanOut,
    });
    this.watch = new ActorTreeWatch(
      {
        markDirty,
        entered: (stateText, context) => run.entered(stateText, context),
        log: (entry) => run.log(entry),
        settle: (outcome) => run.settle(outcome),
      },
      this.resume,
      this.rejections,
    );
    this.watch.watchRoot(actor);
    job.onAbort = this;
    run.log(from.machine === undefined ? '{"type":"started"}' : '{"type":"resumed"}');
  }

  /** ABORTED (AbortListener): the outcome, then the snapshot the ending stores, then the actor
   * stopped. */
  aborted(): void {
    this.run.settle({ kind: 'aborted' });
    const actor = this.actor!;
    if (actor.getSnapshot().status !== 'active') return; // done or errored: nothing runs on
    try {
      this.atAbort = this.machineNow(actor);
    } catch (err) {
      this.atAbort = { unstorable: err }; // thrown by failure(), as a live actor's would be
    }
    try {
      actor.stop();
    } catch (err) {
      this.host.log.warn({ err, jobId: this.job.id }, 'stopping the machine on abort failed');
    }
  }

  /** The actor's persisted snapshot, or the one its abort took (ABORTED). */
  private persistedNow(actor: AnyActor): unknown {
    const at = this.atAbort;
    if (!at) return persistedSnapshot(actor);
    if ('unstorable' in at) throw at.unstorable;
    return at.persisted;
  }

  timerDueAtStart(): boolean {
    const { from } = this;
    if (from.migratedFrom !== undefined || from.timers.length === 0) return false;
    const now = this.host.now();
    // XState's timer (setTimeout 0) then fires before a checkpoint would see anything new.
    return from.timers.some((t) => t.dueAt <= now);
  }

  start(): void {
    const actor = this.actor!;
    const { from, run } = this;
    actor.start();
    this.watch.started(actor);
    if (actor.getSnapshot().status === 'error')
      run.settle({ kind: 'error', error: actor.getSnapshot().error, event: 'xstate.init' });
    let timers = from.timers;
    if (from.migratedFrom !== undefined) {
      // The migrate may have left timers of states that are gone, and states without theirs; the
      // ones it arms are stamped from the store's time never behind (StoreClock.ts NEVER EARLY).
      const r = reconcileTimers(actor, timers, this.host.latest());
      this.lastTimers = timers = r.timers;
      if (r.dropped.length > 0 || r.armed.length > 0)
        run.log(
          JSON.stringify({
            type: 'timers-migrated',
            fromVersion: from.migratedFrom,
            dropped: r.dropped,
            armed: r.armed.map(({ id, source, dueAt }) => ({ id, source, dueAt })),
          }),
        );
    }
    restoreTimers(actor, timers, this.host.now(), this.dueTimes);
    this.moved = false;
  }

  /**
   * AT START (machineDriver.ts): a fresh run whose tree has not moved since its start, with code
   * running in it (a step in flight: not parkable, no fan-out set up) and no timer armed (a
   * fresh claim would arm it anew, from its own start). Its checkpoint (the checkpoint() just
   * taken: lastTimers) holds only what a fresh claim's start makes again.
   */
  atStart(): boolean {
    const actor = this.actor;
    return (
      this.from.machine === undefined &&
      !this.moved &&
      actor !== undefined &&
      actor.getSnapshot().status === 'active' &&
      this.lastTimers.length === 0 &&
      this.fan!.setups === 0 &&
      !isParkable(actor)
    );
  }

  status(): string {
    return this.actor!.getSnapshot().status;
  }

  /** The user's state (an errored machine keeps the state it errored in; one whose context
   * could not even be made has none: its initial state). */
  value(): unknown {
    const value = (this.actor?.getSnapshot() as { value?: unknown } | undefined)?.value;
    if (value !== undefined) return value;
    const initial = (this.def.machine.config as { initial?: unknown }).initial;
    return typeof initial === 'string' ? initial : undefined;
  }

  offer(msg: InboxEvent): Offered {
    return offerEvent(this.actor!, msg);
  }

  notOffered(texts: readonly string[]): string[] {
    return notOffered(texts, this.actor!.getSnapshot());
  }

  checkpoint(): CheckpointParts {
    const actor = this.actor!;
    const timers = captureTimers(actor, this.dueTimes);
    this.lastTimers = timers;
    const w = persistedJson(actor);
    const t = storedTimersJson(timers);
    const snap = actor.getSnapshot();
    return { w, t, state: JSON.stringify(snap.value), context: snap.context };
  }

  parkAt(): number | null | undefined {
    if (this.fan!.setups !== 0 || !isParkable(this.actor!)) return undefined;
    return earliestDue(this.lastTimers);
  }

  /**
   * A held run's machine timers tell it as they fire (heldClock.ts): the one its wait ends at is
   * the first of those the last checkpoint stored (parkAt's), while any is armed.
   */
  timerAt(): number | undefined {
    return this.heldClock?.armed ? (earliestDue(this.lastTimers) ?? undefined) : undefined;
  }

  rejected(err: unknown): boolean {
    return this.rejections.has(err);
  }

  halt(): void {
    this.fan?.detach();
  }

  done(): { output: unknown; persisted: unknown; value: unknown } {
    const actor = this.actor!;
    const snap = actor.getSnapshot();
    // Checked as every checkpoint is: a done can be the first write of a context that cannot be
    // stored (a cycle assigned on the way into the final state would overflow XState's stack).
    return { output: snap.output, persisted: persistedSnapshot(actor), value: snap.value };
  }

  /** The machine now: its persisted snapshot (a throw: it cannot be stored), timers and state. */
  private machineNow(actor: AnyActor): { persisted: unknown; timers: StoredTimer[]; value: unknown } {
    return {
      persisted: persistedSnapshot(actor),
      timers: captureTimers(actor, this.dueTimes),
      value: actor.getSnapshot().value,
    };
  }

  park(): { w: string; t: string; state: string; value: unknown } {
    // A held run handed back at a stop (HANDED BACK, heldRun.ts) parks as its abort found it,
    // with the timers its stopped actor no longer has.
    const at = this.atAbort;
    if (at !== undefined && 'unstorable' in at) throw at.unstorable;
    const { persisted, timers, value } = at ?? this.machineNow(this.actor!);
    return {
      w: storedMachineJson(persisted),
      t: storedTimersJson(timers),
      state: JSON.stringify(value),
      value,
    };
  }

  failure(outcome: Outcome, thrown: unknown): FailureParts {
    const { actor, from } = this;
    // A snapshot that cannot be stored is not tried again: only the lifecycle is stored.
    const storable =
      !(thrown instanceof UnserializableSnapshotError) &&
      !(thrown instanceof UnregisteredActorError && thrown.field !== undefined);
    const lastActive =
      actor && outcome.kind === 'error' && storable ? this.resume.lastActive(actor) : undefined;
    return {
      persisted: this.unrestorable
        ? from.storedW
        : !storable
          ? undefined
          : actor
            ? thrown instanceof MachineActionError
              ? // Stored without children, as XState stores a machine an unhandled actor error
                // stopped (it keeps the event's sender when its own code threw): the actors are
                // stopped either way, and the compiled runtime stores the same.
                { ...(this.persistedNow(actor) as object), children: {} }
              : this.persistedNow(actor)
            : from.storedW,
      lastActive: lastActive && this.resume.persisted(this.def.machine, lastActive),
      timers: this.lastTimers,
      value: this.value(),
    };
  }

  stop(): void {
    this.actor?.stop();
  }
}
