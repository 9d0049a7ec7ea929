// A definition or setting that cannot be run, refused when it is given or at start, not when a
// job first runs: a job or pipeline definition, a machine name, a changed machine, a retention.

import { CODE } from '../errorCodes.js';
import { type ErrorIds, MachinistError } from './MachinistError.js';

/**
 * A `defineJob` / `definePipeline` option, or a `jobs` list, that cannot be run: thrown when the
 * job is defined, not when it first runs. `field` names the option, `machine` the job.
 */
export class DefinitionError extends MachinistError {
  constructor(message: string, ids: ErrorIds = {}) {
    super(CODE.INVALID_DEFINITION, message, ids);
  }
}

/**
 * A pipeline machine that cannot be persisted (an invoke of inline logic, of an unregistered
 * name, without an id; a spawn of inline logic). `state` is the state node's id.
 */
export class PipelineDefinitionError extends MachinistError {
  constructor(machine: string, state: string, message: string) {
    super(CODE.INVALID_PIPELINE, `definePipeline('${machine}'): ${message}`, { machine, state });
  }
}

export class UnknownMachineError extends MachinistError {
  constructor(machine: string, ids: ErrorIds = {}) {
    super(CODE.UNKNOWN_MACHINE, `no job machine named '${machine}' is registered`, { ...ids, machine });
  }
}

/**
 * A retention setting below what the supervisor needs to keep its promises: a finished record
 * must outlive the lease of a worker that may still act on it and the reap after that lease
 * (`floorMs` = leaseMs + reaperIntervalMs). `field` names the option. Refused at start.
 */
export class RetentionTooShortError extends MachinistError {
  constructor(
    field: string,
    readonly valueMs: number,
    readonly floorMs: number,
    why: string,
  ) {
    super(
      CODE.RETENTION_TOO_SHORT,
      `${field} ${valueMs} ms is below the safe floor of ${floorMs} ms (${why}); raise ${field} to at least ${floorMs}`,
      { field },
    );
  }
}

/**
 * A supervisor's definition of `machine` at `version` differs from the one registered for that
 * name and version (its fingerprint): jobs stored by the registered one may not restore on it.
 * Bump the version (with a migrate if its jobs need one), or accept the change explicitly.
 */
export class MachineChangedError extends MachinistError {
  constructor(
    machine: string,
    readonly version: number,
    readonly unfinished: number,
  ) {
    super(
      CODE.MACHINE_CHANGED,
      `machine '${machine}' version ${version} differs from the definition registered for that version, ` +
        `and ${unfinished} unfinished job${unfinished === 1 ? '' : 's'} of it may have been stored by the registered one: ` +
        `bump the version (with a migrate if those jobs need one), or pass acceptChangedMachines: ['${machine}@${version}'] to run them on this definition`,
      { machine },
    );
  }
}
