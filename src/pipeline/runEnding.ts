// A pipeline run's ending write (pipelineRun.ts), from its first outcome: done, park, or a
// failure (error or aborted), each written as pipelineEnding.ts stores it, whichever driver ran
// the machine. Apart from the run core, which decides the outcome and when it is written
// (finish); a function taking what it writes explicitly: no object of its own per run.

import type { LifecycleSnapshot } from '../../machines/job.js';
import type { ActiveJob } from '../runtime/ActiveJob.js';
import { UnregisteredActorError, UnserializableSnapshotError } from '../errors.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import { pipelineSnapshotText, writePipelineDone, writePipelineFailure } from './pipelineEnding.js';
import type { CheckpointWriter } from './checkpointWriter.js';
import type { HeldEvents } from './heldEvents.js';
import { pipelineError } from './unregisteredActor.js';
import { machineFault, stateName } from './machineFault.js';
import type { MachineDriver, Outcome } from './machineDriver.js';

/** A failure to persist the run, as the job's error: it MUST fail the job, not the worker. */
export function unstorable(err: unknown): UnserializableSnapshotError | UnregisteredActorError {
  if (err instanceof UnserializableSnapshotError || err instanceof UnregisteredActorError) return err;
  const reason = `the checkpoint failed (${err instanceof Error ? err.message : String(err)})`;
  return new UnserializableSnapshotError('snapshot', { reason }, { cause: err });
}

/**
 * Writes the run's ending (`life`: the attempt's lifecycle after its claim; `inboxConsumed`: the
 * inbox position the run has read to). Not an async function: each outcome's write is the
 * promise it returns (an async frame around it was one more frame and promise a resume, and two
 * ticks); what it throws before that is thrown to the run's finish(), which fails the job with
 * it, as it did.
 */
export function writeRunEnding(
  job: ActiveJob,
  life: LifecycleSnapshot,
  def: PipelineDefinition,
  timeoutMs: number,
  driver: MachineDriver,
  checkpoints: CheckpointWriter,
  held: HeldEvents,
  inboxConsumed: number,
  result: Outcome,
): Promise<unknown> {
  if (result.kind === 'done') {
    held.dropAll(checkpoints.pending);
    return writePipelineDone(job, life, def, timeoutMs, driver.done(), checkpoints.pending);
  }
  if (result.kind === 'park') {
    const p = driver.park();
    // The lifecycle's PARK (working -> waiting) is not stepped here: the store makes the move
    // by the table the machine gives it (lcMove.lua, lifecycleTable.ts), and nothing stored or
    // read after a park comes from the run's lifecycle. Stepped per park (XState's transition,
    // its context stamped with the wake time), it cost every park worker CPU for nothing
    // (bench/RESULTS.md, round thirteen).
    const text = pipelineSnapshotText(p.w, p.t, held.text());
    job.end();
    return job.write({
      kind: 'park',
      id: job.id,
      token: job.token,
      wakeAt: result.wakeAt,
      snapshot: text,
      state: p.state,
      // None consumed: no `io` written (read back as 0; one hash field fewer per parked job).
      inboxConsumed: inboxConsumed || undefined,
      log: [
        ...checkpoints.pending,
        JSON.stringify({ type: 'parked', state: p.value, wakeAt: result.wakeAt }),
      ],
    });
  }
  const thrown =
    result.kind !== 'error'
      ? job.signal.reason
      : result.event === undefined
        ? pipelineError(result.error)
        : machineFault(pipelineError(result.error), driver.rejected(result.error), {
            jobId: job.id,
            machine: def.name,
            state: stateName(driver.value() ?? ''),
            event: result.event,
          });
  const f = driver.failure(result, thrown);
  return writePipelineFailure(job, life, def, timeoutMs, {
    thrown,
    persisted: f.persisted,
    lastActive: f.lastActive,
    timers: f.timers,
    stateText: f.value === undefined ? checkpoints.lastState : JSON.stringify(f.value),
    log: checkpoints.pending,
    heldText: checkpoints.lastHeld,
  });
}
