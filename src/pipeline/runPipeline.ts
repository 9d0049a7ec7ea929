// Runs one attempt of a pipeline job: reads its stored snapshot (migrating another version's),
// fails at once a snapshot in a state this definition lacks, and hands the run to the runtime
// core (pipelineRun.ts) with the driver that fits: the compiled step table when the machine has
// one and the stored snapshot is one it can start from (a step state, or a wait state with its
// one timer: a parked pipeline resumes without an XState actor), XState actors otherwise.

import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import { successPath } from '../runtime/lifecycle.js';
import { settleFailure } from '../runtime/settle.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import type { StoredTimer } from './timers.js';
import { runCompiledPipeline } from './runCompiledPipeline.js';
import { compiledStart } from './compiledStart.js';
import { runMigrate } from './migrate.js';
import { machineFromStored, timersFromStored } from './storedParts.js';
import { UnknownStateError } from '../errors.js';
import { missingState } from './knownStates.js';
import { PipelineRun } from './pipelineRun.js';
import { XStateDriver } from './xstateDriver.js';

interface StoredPipelineSnapshot {
  l?: unknown;
  w?: unknown;
  t?: StoredTimer[];
  /** Events held until a state takes them (heldEvents.ts). */
  h?: unknown[];
}

export function runPipeline(
  job: ActiveJob,
  def: PipelineDefinition,
  input: unknown,
  timeoutMs: number,
  host: AttemptHost,
): Promise<void> {
  // Not an async function: it awaits nothing, and an async one returning the run's promise costs
  // a frame and a promise per attempt, and resolves its caller two ticks later. What it throws
  // rejects its promise still, as an async function's throw would.
  try {
    return startPipeline(job, def, input, timeoutMs, host);
  } catch (err) {
    return Promise.reject(err);
  }
}

function startPipeline(
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
  // Each part is its own value codec text, in the compact form (storedParts.ts).
  let machineSnapshot = machineFromStored(stored?.w);
  let storedTimers = timersFromStored(stored?.t);
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
    const start = compiledStart(def.compiled, machineSnapshot, storedTimers, migrated);
    // What the XState runtime keys the claimed snapshot by, to skip writing it again unmoved.
    const storedText = () => `${JSON.stringify(stored!.w)}|${JSON.stringify(stored!.t ?? [])}`;
    if (start)
      return runCompiledPipeline(
        job,
        def,
        def.compiled,
        start,
        input,
        timeoutMs,
        host,
        stored?.h,
        storedText,
      );
  }
  const driver = new XStateDriver(job, def, host, input, {
    machine: machineSnapshot,
    timers: storedTimers,
    storedW: stored?.w,
    storedT: stored?.t,
    stored: stored !== null,
    migratedFrom: migrated ? c.version : undefined,
  });
  return new PipelineRun(job, def, timeoutMs, host, driver, stored?.h).run();
}
