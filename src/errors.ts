// Every error Machinist raises: a `code` of the registry (errorCodes.ts) and the ids it
// concerns, so callers match on codes, never on message text. `toStoredError` is the one place
// a thrown value becomes JSON; `fromScriptError` the one place a Lua error reply becomes an error.

import { CODE, ERROR_CODES, type ErrorCode, isErrorCode } from './errorCodes.js';

/**
 * A code given by the user's own work (`new NonRetryableError(message, { code })`): any string,
 * kept apart from the registry's codes so that Machinist's own code cannot make one up inline.
 */
export type UserErrorCode = string & { readonly [userCodeBrand]: true };
declare const userCodeBrand: unique symbol;

export interface ErrorIds {
  jobId?: string;
  machine?: string;
  queue?: string;
  state?: string;
  field?: string;
}

export class MachinistError extends Error {
  readonly code: ErrorCode | UserErrorCode;
  readonly jobId?: string;
  readonly machine?: string;
  readonly queue?: string;
  readonly state?: string;
  readonly field?: string;
  /** True when retrying the same attempt cannot help. */
  readonly nonRetryable: boolean = false;

  constructor(
    code: ErrorCode | UserErrorCode,
    message: string,
    ids: ErrorIds = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    Object.assign(this, ids);
  }
}

/** Enqueue input that cannot be accepted; nothing was written. `field` names the culprit. */
export class ValidationError extends MachinistError {
  constructor(message: string, ids: ErrorIds = {}) {
    super(CODE.INVALID_INPUT, message, ids);
  }
}

/** One problem an input schema found: where (`input.sizes[1]`) and what. */
export interface InputIssue {
  path: string;
  message: string;
}

/**
 * An input that the job's declared schema (`defineJob({ input })`, Standard Schema) refuses;
 * nothing was written. `field` is the first issue's path, `issues` lists every one.
 * A ValidationError (code INVALID_INPUT), so callers that handle those handle it too.
 */
export class InputSchemaError extends ValidationError {
  readonly issues: readonly InputIssue[];
  constructor(machine: string, issues: readonly InputIssue[]) {
    const shown = issues.slice(0, 10).map((i) => `${i.path}: ${i.message}`);
    if (issues.length > shown.length) shown.push(`and ${issues.length - shown.length} more`);
    super(`input of '${machine}' does not match its schema: ${shown.join('; ')}`, {
      machine,
      field: issues[0]?.path ?? 'input',
    });
    this.issues = issues;
  }
}

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

export class JobNotFoundError extends MachinistError {
  constructor(jobId: string, queue?: string) {
    super(CODE.JOB_NOT_FOUND, `job ${jobId} does not exist${queue ? ` in queue '${queue}'` : ''}`, {
      jobId,
      queue,
    });
  }
}

export class JobFinishedError extends MachinistError {
  constructor(jobId: string, status: string) {
    super(CODE.JOB_FINISHED, `job ${jobId} has already finished (${status})`, { jobId });
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

/** A write by a worker whose lease has passed: the job belongs to someone else now. */
export class LeaseLostError extends MachinistError {
  constructor(jobId: string) {
    super(CODE.LEASE_LOST, `lease on job ${jobId} was lost; this worker may no longer write it`, { jobId });
  }
}

export class TimeoutError extends MachinistError {
  constructor(message: string, ids: ErrorIds = {}) {
    super(CODE.TIMEOUT, message, ids);
  }
}

/**
 * Redis did not take a client call within its bound (`RedisStoreOptions.commandTimeoutMs`):
 * unreachable, or refusing it for a while (OOM, LOADING, ...). `address` names the server.
 * Nothing was written unless `maybeApplied`: the call's command had been sent when the
 * connection went or the bound passed, so Redis may apply it (an enqueue then creates the job
 * under `jobId`, which a retry with the same idempotencyKey finds).
 */
export class RedisUnavailableError extends MachinistError {
  readonly address: string;
  readonly maybeApplied: boolean;
  constructor(
    address: string,
    message: string,
    options: { ids?: ErrorIds; maybeApplied?: boolean; cause?: unknown } = {},
  ) {
    super(CODE.REDIS_UNAVAILABLE, message, options.ids, { cause: options.cause });
    this.address = address;
    this.maybeApplied = options.maybeApplied ?? false;
  }
}

/**
 * A MemoryStore's data file is held by another live process (its lock file, `<file>.lock`, names
 * it): two stores writing one file would each overwrite the other's acknowledged jobs.
 */
export class DataFileLockedError extends MachinistError {
  readonly file: string;
  readonly pid: number;
  constructor(file: string, pid: number, message: string) {
    super(CODE.DATA_FILE_LOCKED, message);
    this.file = file;
    this.pid = pid;
  }
}

/**
 * A MemoryStore's data file could not be written (its directory gone, the disk full, no
 * permission): the store takes no more writes, which it could not keep, until a retry of the
 * write succeeds. Nothing was written by the call that got this.
 */
export class DataFileUnwritableError extends MachinistError {
  readonly file: string;
  constructor(file: string, cause: unknown) {
    super(
      CODE.DATA_FILE_UNWRITABLE,
      `MemoryStore: the data file ${file} cannot be written (${(cause as Error)?.message ?? String(cause)}); ` +
        'no write is taken until it can be',
      {},
      { cause },
    );
    this.file = file;
  }
}

/**
 * The store's data format (`<prefix>:format` in Redis, `format` in a MemoryStore data file) is
 * not the one this code reads (src/store/storeFormat.ts): STORE_FORMAT_NEWER when a newer
 * Machinist wrote it (run that version), STORE_FORMAT_OLDER when it predates this code (run
 * `machinist migrate-store`). Refused before anything is written.
 */
export class StoreFormatError extends MachinistError {
  /** The version found (0: a populated store from before versions were kept). */
  readonly stored: number;
  /** The version this code reads and writes. */
  readonly current: number;
  constructor(
    code: 'STORE_FORMAT_NEWER' | 'STORE_FORMAT_OLDER',
    stored: number,
    current: number,
    where: string,
  ) {
    super(
      code,
      code === 'STORE_FORMAT_NEWER'
        ? `${where} holds data format ${stored}, newer than the ${current} this Machinist reads: ` +
            'run the Machinist version that wrote it (or a newer one)'
        : `${where} holds data format ${stored}, older than the ${current} this Machinist reads: ` +
            'stop the workers and run `machinist migrate-store` (docs/data-format.md)',
    );
    this.stored = stored;
    this.current = current;
  }
}

/** Thrown by work: fail the job at once, whatever attempts remain. */
export class NonRetryableError extends MachinistError {
  override readonly nonRetryable = true;
  constructor(message: string, options?: { code?: string; cause?: unknown }) {
    super((options?.code as UserErrorCode | undefined) ?? CODE.NON_RETRYABLE, message, {}, options);
  }
}

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

/** Thrown by work: requeue after `delayMs` without using up an attempt (e.g. a rate limit). */
export class RetryLaterError extends MachinistError {
  readonly delayMs: number;
  constructor(delayMs: number, message = `retry later in ${delayMs} ms`) {
    super(CODE.RETRY_LATER, message);
    if (!Number.isFinite(delayMs) || delayMs < 0)
      throw new TypeError('RetryLaterError: delayMs must be >= 0');
    this.delayMs = delayMs;
  }
}

/**
 * The job's work asked to retry later (RetryLaterError) more often than its definition's
 * `retry.retryLater.maxRetries` allows: the job fails at once (a dead letter), the last
 * RetryLaterError as its `cause`. Like an unreachable target given up on after so many tries.
 */
export class RetryLaterExhaustedError extends MachinistError {
  override readonly nonRetryable = true;
  readonly retryLaters: number;
  constructor(retryLaters: number, maxRetries: number, ids: ErrorIds, cause: unknown) {
    super(
      CODE.RETRY_LATER_EXHAUSTED,
      `asked to retry later ${retryLaters} times (at most ${maxRetries}): ${toError(cause).message}`,
      ids,
      { cause },
    );
    this.retryLaters = retryLaters;
  }
}

/** The form an error takes in a job record: plain JSON (XState would turn an Error into {}). */
export interface StoredError {
  name: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: StoredError;
}

/** Coerces anything thrown into an Error. */
export function toError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  if (typeof thrown === 'string') return new Error(thrown);
  try {
    return new Error(`non-error thrown: ${JSON.stringify(thrown)}`);
  } catch {
    return new Error(`non-error thrown: ${String(thrown)}`);
  }
}

export function toStoredError(thrown: unknown, depth = 0): StoredError {
  const err = toError(thrown);
  const out: StoredError = { name: err.name, message: err.message };
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = String(code);
  if (err.stack) out.stack = err.stack.split('\n').slice(0, 12).join('\n');
  if (err.cause !== undefined && depth < 3) out.cause = toStoredError(err.cause, depth + 1);
  return out;
}

/**
 * Lua replies `error_reply('CODE detail')`; this is the one place such a reply becomes an error.
 * A code the registry marks `lua` becomes its class where it has one (JOB_NOT_FOUND,
 * JOB_FINISHED, LEASE_LOST), else a MachinistError of that code with the reply as its message
 * (as MemoryStore throws it). Anything else (not a reply of ours) is returned as it is.
 */
export function fromScriptError(err: unknown, ids: ErrorIds = {}): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const m = /^(?:ERR )?([A-Z_]+) ?(.*)$/.exec(message);
  if (!m) return err;
  const [, code, detail = ''] = m;
  if (!isErrorCode(code) || !('lua' in ERROR_CODES[code])) return err;
  switch (code) {
    case CODE.JOB_NOT_FOUND:
      return new JobNotFoundError(ids.jobId ?? detail, ids.queue);
    case CODE.JOB_FINISHED:
      return new JobFinishedError(ids.jobId ?? detail, detail.split(' ')[1] ?? 'finished');
    case CODE.LEASE_LOST:
      return new LeaseLostError(ids.jobId ?? detail);
    default:
      return new MachinistError(code, message.replace(/^ERR /, ''), ids, { cause: err });
  }
}

/**
 * A sandboxed job's thread (defineJob `sandbox`) ended without an answer: SANDBOX_EXITED (it
 * exited, e.g. `process.exit` in the job's code), or its work could not be found: SANDBOX_LOAD
 * (the module has no such export, or it is not a function or a job definition; not retried).
 */
export class SandboxError extends MachinistError {
  override readonly nonRetryable: boolean;
  constructor(
    code: typeof CODE.SANDBOX_EXITED | typeof CODE.SANDBOX_LOAD,
    message: string,
    ids: ErrorIds = {},
  ) {
    super(code, message, ids);
    this.nonRetryable = code === CODE.SANDBOX_LOAD;
  }
}

/**
 * A Lua script whose `--- @include "name"` lines cannot be resolved (src/store/redis/luaIncludes.ts):
 * LUA_INCLUDE_MISSING when `include` has no file in lua/include/, LUA_INCLUDE_CYCLE when the
 * includes need each other round (`chain` lists the loop). Thrown when the scripts are loaded,
 * before anything reaches Redis.
 */
export class LuaIncludeError extends MachinistError {
  readonly script: string;
  readonly include: string;
  readonly chain: readonly string[];
  constructor(code: 'LUA_INCLUDE_MISSING' | 'LUA_INCLUDE_CYCLE', script: string, chain: readonly string[]) {
    const include = chain[chain.length - 1]!;
    super(
      code,
      code === 'LUA_INCLUDE_MISSING'
        ? `lua script ${script}: include "${include}" not found in lua/include/ (needed by ${chain.slice(0, -1).join(' -> ')})`
        : `lua script ${script}: includes form a cycle: ${chain.join(' -> ')}`,
    );
    this.script = script;
    this.include = include;
    this.chain = chain;
  }
}
