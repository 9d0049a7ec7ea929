// A pipeline job that no retry can carry on: its snapshot cannot be restored or stored, it names
// a state or an actor the machine lacks, or the machine's own code threw. Each fails the job at
// once and keeps the snapshot for a redrive after a fixed deploy.

import { CODE } from '../errorCodes.js';
import { type ErrorIds, MachinistError } from './MachinistError.js';
import { toError } from './storedError.js';

/**
 * A pipeline's stored snapshot that its machine cannot restore (it names a state the machine
 * does not have, or holds what XState cannot read back). No attempt can succeed with it: the job
 * fails at once, keeping the snapshot, so that a redrive after a fixed deployment resumes it.
 */
export class UnrestorableSnapshotError extends MachinistError {
  override readonly nonRetryable = true;
  constructor(jobId: string, machine: string, cause: unknown) {
    super(
      CODE.UNRESTORABLE_SNAPSHOT,
      `the stored snapshot of job ${jobId} cannot be restored by machine '${machine}': ` +
        (cause instanceof Error ? cause.message : String(cause)),
      { jobId, machine },
      { cause },
    );
  }
}

/**
 * A value a job must store (its output, progress, context, machine snapshot) that the value
 * codec (store/valueCodec.ts) cannot bring back exactly: a class instance, a function, a cycle,
 * a toJSON() that throws, an actor spawned from inline logic (it could never be restored). Retrying cannot help: the job fails at once. `field` is the path to the
 * value when it can be found (`context.items[2].size`), also named in the message.
 */
export class UnserializableSnapshotError extends MachinistError {
  override readonly nonRetryable = true;
  constructor(
    what: string,
    problem: { path?: string; reason: string; hint?: string },
    options?: { cause?: unknown },
  ) {
    super(
      CODE.UNSERIALIZABLE_SNAPSHOT,
      `the job's ${what} cannot be stored as JSON: ${problem.reason}` +
        (problem.path ? ` at ${problem.path}` : '') +
        (problem.hint ? ` (${problem.hint})` : ''),
      { field: problem.path },
      options,
    );
  }
}

/**
 * A stored pipeline snapshot names a state its machine does not have (a state renamed or
 * removed without a migrate that maps it, or a machine changed without a new version). No
 * retry can restore it: the job fails at once, keeping its snapshot for a redrive once a
 * definition that has the state (or a migrate that maps it) is deployed.
 */
export class UnknownStateError extends MachinistError {
  override readonly nonRetryable = true;
  constructor(
    readonly version: number,
    where: {
      jobId: string;
      machine: string;
      state: string;
      child?: string;
      migratedFrom?: number;
      /** The state is one a history state remembers (by id), not an active one. */
      history?: boolean;
    },
  ) {
    super(
      CODE.UNKNOWN_STATE,
      `machine '${where.machine}' version ${version} has no state '${where.state}'` +
        (where.child ? ` in its child '${where.child}'` : '') +
        (where.history
          ? `, which job ${where.jobId}'s snapshot remembers in its history (historyValue)`
          : `, which job ${where.jobId}'s snapshot is in`) +
        (where.migratedFrom !== undefined ? ` (migrated from version ${where.migratedFrom})` : '') +
        ': deploy a definition that has it, or a migrate that maps it, then redrive the job',
      { jobId: where.jobId, machine: where.machine, state: where.state },
    );
  }
}

/**
 * A machine spawned (or invoked) an actor by a name not registered in its `setup({ actors })`,
 * where no check at definePipeline could see it (a `spawn` in an `assign`, an `enqueueActions`):
 * no worker could run it, nor restore a snapshot holding it. Retrying cannot help: the job fails
 * at once. `field` is the path to the child when known (`children.g`).
 */
export class UnregisteredActorError extends MachinistError {
  override readonly nonRetryable = true;
  constructor(message: string, ids: ErrorIds = {}, options?: { cause?: unknown }) {
    super(CODE.UNREGISTERED_ACTOR, message, ids, options);
  }
}

/**
 * A pipeline machine's own code threw while it took an event: an action (`assign`, entry, exit),
 * a guard, an invoke's `input` mapper, the context factory or `output`. That code is
 * deterministic (the machine runs it on the same state and event every time), so retrying would
 * fail the same way: the job fails at once, in the state it was in (`state`), and keeps the
 * snapshot a redrive resumes from after a fixed deploy. `event` is the event's type
 * (`xstate.init` at the start). The thrown value is the `cause`. A step (promise actor) that
 * rejects is not this: it follows the retry policy.
 */
export class MachineActionError extends MachinistError {
  override readonly nonRetryable = true;
  readonly event: string;
  constructor(ids: ErrorIds & { state: string; event: string }, cause: unknown) {
    const err = toError(cause);
    super(
      CODE.ACTION_FAILED,
      `machine code threw in state '${ids.state}' on event '${ids.event}': ${err.name}: ${err.message}`,
      { jobId: ids.jobId, machine: ids.machine, state: ids.state },
      { cause },
    );
    this.event = ids.event;
  }
}
