// Runs a pipeline job: restores its machine from the last checkpoint, feeds it the events in
// its inbox, persists each settled macrostep, and ends the attempt in one of four ways:
//   done     the machine reached a final state: its output is the job's output;
//   error    the machine errored: an invoked actor's rejection no onError took follows the
//            lifecycle's retry policy (a retry resumes from the last checkpoint, so completed
//            steps do not run again); its own code that threw fails the job at once
//            (MachineActionError: machineFault.ts);
//   park     nothing runs and it only waits (events, timers, child jobs): persist, give up the
//            slot, stop the actor; the store wakes the job when its wait is over;
//   aborted  timeout / cancel / shutdown / lease lost (see settle.ts).
//
// Checkpoints are not awaited before the machine goes on: a crash before one is written only
// re-runs the step it covered. A refused checkpoint (lease lost) aborts the run.

import { createActor, type AnyActor, type AnyActorRef } from 'xstate';
import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import { stepLifecycle, successPath } from '../runtime/lifecycle.js';
import { settleFailure } from '../runtime/settle.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import { bindJobScope } from './jobScope.js';
import { TimerDueTimes, captureTimers, earliestDue, restoreTimers, type StoredTimer } from './timers.js';
import { isMachineLogic, isParkable } from './parkable.js';
import { compiledStart, runCompiledPipeline } from './runCompiledPipeline.js';
import { pipelineSnapshotText, writePipelineDone, writePipelineFailure } from './pipelineEnding.js';
import { CheckpointWriter } from './checkpointWriter.js';
import { runFanOut, type FanOutHost } from './fanOutRuntime.js';
import { persistedJson, persistedSnapshot } from './persisted.js';
import { ResumePoint } from './resumePoint.js';
import { reconcileTimers, runMigrate } from './migrate.js';
import { toStoredJson } from '../runtime/storedJson.js';
import { reviveValue } from '../store/valueCodec.js';
import {
  MachineActionError,
  UnknownStateError,
  UnregisteredActorError,
  UnrestorableSnapshotError,
  UnserializableSnapshotError,
} from '../errors.js';
import { missingState } from './knownStates.js';
import { notOffered, offerEvent } from './offerEvent.js';
import { parseInboxEvent, type InboxEvent } from '../runtime/inboxEvent.js';
import { HeldEvents } from './heldEvents.js';
import { pipelineError } from './unregisteredActor.js';
import { ActorRejections, eventInProcess, machineFault, stateName } from './machineFault.js';

/** A timer due sooner than this is waited for in memory rather than parking the job. */
export const PARK_MIN_MS = 200;

interface StoredPipelineSnapshot {
  l?: unknown;
  w?: unknown;
  t?: StoredTimer[];
  /** Events held until a state takes them (heldEvents.ts). */
  h?: unknown[];
}

/** The earlier of two wake times (null: none). */
function earliestOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

/** A failure to persist the run, as the job's error: it MUST fail the job, not the worker. */
function unstorable(err: unknown): UnserializableSnapshotError | UnregisteredActorError {
  if (err instanceof UnserializableSnapshotError || err instanceof UnregisteredActorError) return err;
  const reason = `the checkpoint failed (${err instanceof Error ? err.message : String(err)})`;
  return new UnserializableSnapshotError('snapshot', { reason }, { cause: err });
}

type Outcome =
  | { kind: 'done' }
  /** `event`: the machine itself errored, taking that event (machineFault.ts). */
  | { kind: 'error'; error: unknown; event?: string }
  | { kind: 'park'; wakeAt: number | null }
  | { kind: 'aborted' };

export async function runPipeline(
  job: ActiveJob,
  def: PipelineDefinition,
  input: unknown,
  timeoutMs: number,
  host: AttemptHost,
): Promise<void> {
  const c = job.claimed;
  const stored: StoredPipelineSnapshot | null = c.snapshot
    ? (JSON.parse(c.snapshot) as StoredPipelineSnapshot)
    : null;
  // Each part is its own value codec text (valueCodec.ts): a Date in the context comes back a Date.
  let machineSnapshot = reviveValue(stored?.w);
  let storedTimers = (reviveValue(stored?.t) as StoredTimer[] | undefined) ?? [];
  const migrated = machineSnapshot !== undefined && c.version !== def.version;
  if (migrated) {
    // Supervisor only hands us another version's snapshot when this definition can migrate it.
    ({ snapshot: machineSnapshot, timers: storedTimers } = runMigrate(
      def.migrate!,
      machineSnapshot,
      c.version,
      storedTimers,
    ));
  }
  // A snapshot in a state this definition lacks cannot be restored, by any retry.
  const missing = machineSnapshot === undefined ? null : missingState(def.machine, machineSnapshot);
  if (missing) {
    const err = new UnknownStateError(def.version, {
      jobId: c.id,
      machine: def.name,
      ...missing,
      child: missing.child || undefined,
      migratedFrom: migrated ? c.version : undefined,
    });
    // Kept as it was stored (its version's form, the record's version unchanged): a redrive
    // after a fixed deploy resumes from it.
    return settleFailure(job, successPath(c.attempt, c.maxAttempts, false).claimed, err, {
      retry: def.retry,
      timeoutMs,
      machineJson: JSON.stringify(stored!.w),
      resumeSnapshot: c.snapshot,
    });
  }
  // From here on every snapshot this run writes is this version's: the record's follows it.
  if (migrated) job.snapshotVersion = def.version;
  // A step-only machine runs from its compiled table when the stored snapshot is one it can
  // start from (its own or the XState runtime's: they store the same form).
  if (def.compiled) {
    const start = compiledStart(def.compiled, machineSnapshot, storedTimers);
    if (start) return runCompiledPipeline(job, def, def.compiled, start, input, timeoutMs, host, stored?.h);
  }
  // Shared by every job with this attempt and maxAttempts (its JSON is cached: pipelineEnding.ts).
  let life = successPath(c.attempt, c.maxAttempts, false).claimed;
  const timer = setTimeout(() => job.abort('timeout', `attempt timed out after ${timeoutMs} ms`), timeoutMs);

  let actor: AnyActor | undefined;
  let unrestorable: UnrestorableSnapshotError | undefined;
  let detached = false;
  let flushScheduled = false;
  const held = new HeldEvents(stored?.h);
  const storedHeld = held.text();
  // What the last checkpoint held (machine snapshot, timers, held events), to skip writing it again.
  const checkpoints = new CheckpointWriter(
    job,
    stored ? `${JSON.stringify(stored.w)}|${JSON.stringify(stored.t ?? [])}|${storedHeld}` : '',
    storedHeld,
  );
  const offer = (msg: InboxEvent) => offerEvent(actor!, msg);
  let inboxConsumed = c.inbox;
  let lastTimers: StoredTimer[] = storedTimers;
  const dueTimes = new TimerDueTimes(host.now);
  /** What a retry resumes from if the machine errors: the tree as it last ran (resumePoint.ts). */
  const resume = new ResumePoint();
  /** What its invoked actors rejected with: not the machine's own code (machineFault.ts). */
  const rejections = new ActorRejections();
  let inboxReading: Promise<void> | undefined;
  // A fan-out whose children are not yet durably enqueued MUST NOT park: if the worker died
  // after parking, nothing would ever wake the parent.
  let fanSetups = 0;
  const fanWaiters = new Set<() => void>();
  let fanInPending = job.fanInSignal;
  const fanHost: FanOutHost = {
    queue: host.queue,
    parentId: c.id,
    fanOpen: (group, total, policy) => host.fanOpen(c.id, job.token, group, total, policy),
    enqueueChildren: (group, jobs, revive) =>
      host.enqueueChildren(c.id, job.token, group, jobs, revive, job.traceContext()),
    cancelJob: (id, queue) => host.cancelTree(id, queue),
    nextFanIn: (signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        if (fanInPending) {
          // The notice came before anyone waited for it: it counts now.
          fanInPending = false;
          return resolve();
        }
        fanWaiters.add(resolve);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
  };
  const fanOutInScope = async (group: string, input: unknown, signal: AbortSignal): Promise<unknown[]> => {
    fanSetups++;
    let settingUp = true;
    const setupDone = () => {
      if (!settingUp) return;
      settingUp = false;
      fanSetups--;
      markDirty();
    };
    try {
      return await runFanOut(
        {
          ...fanHost,
          nextFanIn: (sig) => {
            setupDone();
            return fanHost.nextFanIn(sig);
          },
        },
        group,
        input,
        signal,
      );
    } finally {
      setupDone();
    }
  };
  let settle!: (o: Outcome) => void;
  const outcome = new Promise<Outcome>((r) => (settle = r));

  const stateText = () => JSON.stringify(actor!.getSnapshot().value);

  const checkpoint = (actor: AnyActor) => {
    const status = actor.getSnapshot().status;
    if (status !== 'active') return; // done / error: the outcome writes the ending
    // The machine settled: what it did not take before, it may take now (each taken one is a
    // new macrostep, checkpointed by the flush it schedules).
    held.retry(offer, host.now(), checkpoints.pending);
    if (actor.getSnapshot().status !== 'active') return;
    const timers = captureTimers(actor, dueTimes);
    lastTimers = timers;
    const wText = persistedJson(actor);
    const tText = timers.length === 0 ? '[]' : toStoredJson(timers, 'snapshot', 't');
    const context = actor.getSnapshot().context;
    checkpoints.write(life, wText, tText, stateText(), context, inboxConsumed, held.text());
    held.wakeAtExpiry(host.now(), markDirty);
    if (!inboxReading && fanSetups === 0 && isParkable(actor)) {
      const wakeAt = earliestOf(earliestDue(timers), held.earliestExpiry());
      if (wakeAt === null || wakeAt - host.now() > PARK_MIN_MS) settle({ kind: 'park', wakeAt });
    }
  };
  const flush = () => {
    flushScheduled = false;
    if (detached || !actor) return;
    // Runs from setImmediate: a throw here would kill the worker and every job in it. A
    // checkpoint that cannot be taken fails this job alone, for good.
    try {
      checkpoint(actor);
    } catch (err) {
      settle({ kind: 'error', error: unstorable(err) });
    }
  };
  const markDirty = () => {
    if (flushScheduled || detached) return;
    flushScheduled = true;
    setImmediate(flush);
  };

  /** Offers events read from the inbox; false once the machine cannot take any more. */
  const deliver = (texts: string[]): boolean => {
    for (const [i, text] of texts.entries()) {
      const status = actor!.getSnapshot().status;
      if (status !== 'active') {
        // An earlier event of this batch errored (or ended) the machine: these are not offered,
        // nor counted as taken in (offerEvent.ts notOffered says what becomes of them).
        checkpoints.pending.push(...notOffered(texts.slice(i), actor!.getSnapshot()));
        markDirty();
        return false;
      }
      inboxConsumed++;
      const msg = parseInboxEvent(text);
      if (!msg) {
        checkpoints.pending.push(JSON.stringify({ type: 'event-ignored', reason: 'not JSON' }));
        continue;
      }
      held.receive(msg, offer, host.now(), checkpoints.pending, actor!.getSnapshot().value);
    }
    markDirty();
    return true;
  };
  let readAgain = false;
  const readInbox = () => {
    if (detached) return;
    if (inboxReading) {
      // A read in flight may have run before this event was pushed: read once more after it.
      readAgain = true;
      return;
    }
    inboxReading = (async () => {
      try {
        for (;;) {
          readAgain = false;
          const texts = await host.readInbox(c.id, inboxConsumed);
          if (detached) break;
          if (texts.length > 0) {
            if (!deliver(texts)) break;
          } else if (!readAgain) break;
        }
      } catch (err) {
        host.log.warn({ err, jobId: c.id }, 'reading inbox failed; the job will read it again when it parks');
      } finally {
        inboxReading = undefined;
        markDirty();
      }
    })();
  };

  try {
    actor = createActor(def.machine, {
      ...(machineSnapshot !== undefined ? { snapshot: machineSnapshot as any } : {}),
      input,
    });
    // XState keeps a restore that failed as an errored snapshot (and would rethrow it in a timer
    // on start): the stored snapshot names a state this machine lacks, or the like. No attempt
    // can get past it, so the job fails at once, and keeps the snapshot for a redrive.
    const restored = actor.getSnapshot() as { status?: string; error?: unknown };
    if (machineSnapshot !== undefined && restored.status === 'error')
      throw (unrestorable = new UnrestorableSnapshotError(c.id, def.name, restored.error));
    bindJobScope(actor.system, {
      jobId: c.id,
      queue: host.queue,
      attempt: c.attempt,
      signal: job.signal,
      progress: job.progress,
      fanOut: fanOutInScope,
    });
    job.onFanIn = () => {
      const waiters = [...fanWaiters];
      fanWaiters.clear();
      if (waiters.length === 0) fanInPending = true;
      for (const w of waiters) w();
    };
    // Persistence follows the root and every machine actor below it. The root's own
    // subscription does not fire when only a child machine changes (XState v5), so each one
    // found in the tree is subscribed as well. (An `inspect` observer would see them all, but makes XState
    // build an inspection event for every microstep and action: ~11 us of a 3-step job.)
    // XState reports a throw from an observer with a bare `throw` in a timer, which would kill
    // the worker: the observers below catch everything and fail this job instead.
    const root = actor;
    // An actor that errors swaps its mailbox for a new one before telling its observers: the
    // one it was processing the event from is this one (machineFault.ts eventInProcess).
    const mailbox = (actor as unknown as { mailbox?: unknown }).mailbox;
    const watched = new WeakSet<object>();
    const watchChildren = (snapshot: { children?: Record<string, AnyActorRef | undefined> }) => {
      for (const child of Object.values(snapshot.children ?? {})) {
        if (!child) continue;
        if (!isMachineLogic((child as { logic?: unknown }).logic)) {
          resume.noteActor(child);
          rejections.note(child);
          continue;
        }
        if (watched.has(child)) continue;
        watched.add(child);
        resume.noteMachine(child, child.getSnapshot() as { status?: string });
        child.subscribe({
          next: (snap) => {
            try {
              resume.noteMachine(child, snap as { status?: string });
              watchChildren(snap as { children?: Record<string, AnyActorRef | undefined> });
              markDirty();
            } catch (err) {
              settle({ kind: 'error', error: err });
            }
          },
          error: () => {}, // the parent gets the error as an event
        });
        watchChildren(child.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> });
      }
    };
    root.subscribe({
      next: (snap) => {
        try {
          resume.noteMachine(root, snap);
          if (snap.status === 'active') checkpoints.entered(JSON.stringify(snap.value), snap.context);
          watchChildren(snap as { children?: Record<string, AnyActorRef | undefined> });
          markDirty();
        } catch (err) {
          settle({ kind: 'error', error: err });
        }
      },
      complete: () => settle({ kind: 'done' }),
      error: (error) => settle({ kind: 'error', error, event: eventInProcess(mailbox) ?? 'xstate.init' }),
    });
    job.signal.addEventListener('abort', () => settle({ kind: 'aborted' }), { once: true });
    job.onInbox = readInbox;
    if (machineSnapshot === undefined) checkpoints.pending.push('{"type":"started"}');
    else checkpoints.pending.push('{"type":"resumed"}');
    actor.start();
    resume.noteMachine(root, actor.getSnapshot());
    watchChildren(actor.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> });
    if (actor.getSnapshot().status === 'error')
      settle({ kind: 'error', error: actor.getSnapshot().error, event: 'xstate.init' });
    if (migrated) {
      // The migrate may have left timers of states that are gone, and states without theirs.
      const r = reconcileTimers(actor, storedTimers, host.now());
      lastTimers = storedTimers = r.timers;
      if (r.dropped.length > 0 || r.armed.length > 0)
        checkpoints.pending.push(
          JSON.stringify({
            type: 'timers-migrated',
            fromVersion: c.version,
            dropped: r.dropped,
            armed: r.armed.map(({ id, source, dueAt }) => ({ id, source, dueAt })),
          }),
        );
    }
    restoreTimers(actor, storedTimers, host.now());
    // Events sent before this claim; later ones are announced on the control channel.
    if (c.hasInbox || job.inboxSignal) readInbox();
    markDirty();
  } catch (err) {
    settle({ kind: 'error', error: err });
  }

  const result = await outcome;
  detached = true;
  held.stop();
  job.onInbox = undefined;
  job.onFanIn = undefined;
  clearTimeout(timer);
  const snap = actor?.getSnapshot();
  // The user's state the run ended in (an errored machine keeps the state it errored in; one
  // whose context could not even be made has none: its initial state).
  const endValue = (): unknown => {
    const value = (snap as { value?: unknown } | undefined)?.value;
    if (value !== undefined) return value;
    const initial = (def.machine.config as { initial?: unknown }).initial;
    return typeof initial === 'string' ? initial : undefined;
  };
  try {
    if (result.kind === 'done') {
      held.dropAll(checkpoints.pending);
      await writePipelineDone(job, life, def, timeoutMs, {
        output: snap.output,
        persisted: actor!.getPersistedSnapshot(),
        value: snap.value,
        log: checkpoints.pending,
      });
    } else if (result.kind === 'park') {
      const timers = captureTimers(actor!, dueTimes);
      const parked = stepLifecycle(life, { type: 'PARK', wakeAt: result.wakeAt });
      const text = pipelineSnapshotText(
        parked,
        persistedJson(actor!),
        toStoredJson(timers, 'snapshot', 't'),
        held.text(),
      );
      life = parked;
      job.end();
      await job.write({
        kind: 'park',
        id: c.id,
        token: c.token,
        wakeAt: result.wakeAt,
        snapshot: text,
        state: stateText(),
        inboxConsumed,
        log: [
          ...checkpoints.pending,
          JSON.stringify({ type: 'parked', state: snap.value, wakeAt: result.wakeAt }),
        ],
      });
    } else {
      const thrown =
        result.kind !== 'error'
          ? job.signal.reason
          : result.event === undefined
            ? pipelineError(result.error)
            : machineFault(pipelineError(result.error), rejections.has(result.error), {
                jobId: c.id,
                machine: def.name,
                state: stateName(endValue() ?? ''),
                event: result.event,
              });
      // A snapshot that cannot be stored is not tried again: only the lifecycle is stored.
      const storable =
        !(thrown instanceof UnserializableSnapshotError) &&
        !(thrown instanceof UnregisteredActorError && thrown.field !== undefined);
      const lastActive = actor && result.kind === 'error' && storable ? resume.lastActive(actor) : undefined;
      await writePipelineFailure(job, life, def, timeoutMs, {
        thrown,
        persisted: unrestorable
          ? stored?.w
          : !storable
            ? undefined
            : actor
              ? thrown instanceof MachineActionError
                ? // Stored without children, as XState stores a machine an unhandled actor
                  // error stopped (it keeps the event's sender when its own code threw): the
                  // actors are stopped either way, and the compiled runtime stores the same.
                  { ...(persistedSnapshot(actor) as object), children: {} }
                : persistedSnapshot(actor)
              : stored?.w,
        lastActive: lastActive && resume.persisted(def.machine, lastActive),
        timers: lastTimers,
        stateText: endValue() === undefined ? checkpoints.lastState : JSON.stringify(endValue()),
        log: checkpoints.pending,
        heldText: checkpoints.lastHeld,
      });
    }
  } catch (err) {
    // A snapshot that cannot be stored (UNSERIALIZABLE_SNAPSHOT): the job fails, for good.
    await settleFailure(job, life, unstorable(err), {
      retry: def.retry,
      timeoutMs,
      log: checkpoints.pending,
    });
  } finally {
    try {
      actor?.stop();
    } catch (err) {
      host.log.warn({ err, jobId: c.id }, 'stopping the machine failed');
    }
  }
}
