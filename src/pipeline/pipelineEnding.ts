// How a pipeline attempt's run is written at its end, whichever runtime drove the machine
// (runPipeline: XState actors; runCompiledPipeline: a compiled step table). Both store the
// same record: `{"w": XState's persisted machine snapshot, "t": timers}`. The lifecycle is not
// stored: the record's status, attempt and error say it (store/lifecycleView.ts).

import type { LifecycleSnapshot } from '../../machines/job.js';
import type { ActiveJob } from '../runtime/ActiveJob.js';
import { settleFailure } from '../runtime/settle.js';
import { toStoredJson } from '../runtime/storedJson.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import type { StoredTimer } from './timers.js';
import { storedMachineJson, storedTimersJson } from './storedParts.js';

/**
 * The stored form of a checkpoint or park: machine snapshot, timers and (when any) the events
 * held until a state takes them (heldEvents.ts), as JSON. The run's lifecycle is not stored: the
 * record's fields say it (store/lifecycleView.ts).
 */
export function pipelineSnapshotText(wText: string, tText: string, hText = ''): string {
  const held = hText === '' ? '' : `,"h":${hText}`;
  return `{"w":${wText},"t":${tText}${held}}`;
}

/**
 * The machine reached a final state (`end`: MachineDriver.done()): its output is the job's
 * output; `log`: the audit entries not yet written.
 */
export async function writePipelineDone(
  job: ActiveJob,
  life: LifecycleSnapshot,
  def: PipelineDefinition,
  timeoutMs: number,
  end: { output: unknown; persisted: unknown; value: unknown; text?: () => string },
  log: string[],
): Promise<void> {
  try {
    const output = toStoredJson(end.output, 'output');
    const w = end.text ? end.text() : storedMachineJson(end.persisted);
    job.end();
    const state = JSON.stringify(end.value);
    await job.write({
      kind: 'done',
      id: job.id,
      token: job.token,
      output,
      snapshot: `{"w":${w}}`,
      state,
      log: [...log, `{"type":"state","state":${state}}`, '{"type":"done"}'],
    });
  } catch (err) {
    // Output or a snapshot that cannot be stored (UNSERIALIZABLE_SNAPSHOT): the job fails.
    await settleFailure(job, life, err, { retry: def.retry, timeoutMs, log });
  }
}

/**
 * The machine errored or the run was aborted: the lifecycle's retry policy decides. An errored
 * machine is retried from the state it failed in (`lastActive`: see resumePoint.ts). When
 * what would be stored cannot be (UNSERIALIZABLE_SNAPSHOT), that is the failure instead, and
 * only the lifecycle is stored: the job fails for good.
 */
export async function writePipelineFailure(
  job: ActiveJob,
  life: LifecycleSnapshot,
  def: PipelineDefinition,
  timeoutMs: number,
  end: {
    thrown: unknown;
    persisted: unknown;
    /** The persisted snapshot a retry resumes from, when the machine errored: its last active
     * state with every invoke that was running or failed set to run again. */
    lastActive: unknown;
    timers: StoredTimer[];
    stateText: string;
    /** Audit entries not yet written (states passed through, events taken). */
    log?: readonly string[];
    /** The events held at the last checkpoint (JSON, '' for none): a retry resumes with them. */
    heldText?: string;
  },
): Promise<void> {
  let thrown = end.thrown;
  let machineJson: string | undefined;
  let resumeSnapshot: string | undefined;
  try {
    if (end.persisted !== undefined) machineJson = storedMachineJson(end.persisted);
    if (end.lastActive !== undefined)
      // Part by part, as every checkpoint: each part is its own codec text (valueCodec.ts).
      resumeSnapshot = pipelineSnapshotText(
        storedMachineJson(end.lastActive),
        storedTimersJson(end.timers),
        end.heldText,
      );
  } catch (err) {
    thrown = err;
    machineJson = resumeSnapshot = undefined;
  }
  await settleFailure(job, life, thrown, {
    retry: def.retry,
    timeoutMs,
    machineJson,
    resumeSnapshot,
    state: end.stateText || undefined,
    log: end.log,
  });
}
