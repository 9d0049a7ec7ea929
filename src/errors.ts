// Every error Machinist raises: a string `code` and the ids it concerns, so callers match on
// codes, never on message text. `toStoredError` is the one place a thrown value becomes JSON.

export interface ErrorIds {
  jobId?: string;
  machine?: string;
  queue?: string;
  state?: string;
  field?: string;
}

export class MachinistError extends Error {
  readonly code: string;
  readonly jobId?: string;
  readonly machine?: string;
  readonly queue?: string;
  readonly state?: string;
  readonly field?: string;
  /** True when retrying the same attempt cannot help. */
  readonly nonRetryable: boolean = false;

  constructor(code: string, message: string, ids: ErrorIds = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    Object.assign(this, ids);
  }
}

/** Enqueue input that cannot be accepted; nothing was written. `field` names the culprit. */
export class ValidationError extends MachinistError {
  constructor(message: string, ids: ErrorIds = {}) {
    super('INVALID_INPUT', message, ids);
  }
}

export class UnknownMachineError extends MachinistError {
  constructor(machine: string, ids: ErrorIds = {}) {
    super('UNKNOWN_MACHINE', `no job machine named '${machine}' is registered`, { ...ids, machine });
  }
}

export class JobNotFoundError extends MachinistError {
  constructor(jobId: string, queue?: string) {
    super('JOB_NOT_FOUND', `job ${jobId} does not exist${queue ? ` in queue '${queue}'` : ''}`, {
      jobId,
      queue,
    });
  }
}

export class JobFinishedError extends MachinistError {
  constructor(jobId: string, status: string) {
    super('JOB_FINISHED', `job ${jobId} has already finished (${status})`, { jobId });
  }
}

/** A write by a worker whose lease has passed: the job belongs to someone else now. */
export class LeaseLostError extends MachinistError {
  constructor(jobId: string) {
    super('LEASE_LOST', `lease on job ${jobId} was lost; this worker may no longer write it`, { jobId });
  }
}

export class TimeoutError extends MachinistError {
  constructor(message: string, ids: ErrorIds = {}) {
    super('TIMEOUT', message, ids);
  }
}

/** Thrown by work: fail the job at once, whatever attempts remain. */
export class NonRetryableError extends MachinistError {
  override readonly nonRetryable = true;
  constructor(message: string, options?: { code?: string; cause?: unknown }) {
    super(options?.code ?? 'NON_RETRYABLE', message, {}, options);
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
      'UNRESTORABLE_SNAPSHOT',
      `the stored snapshot of job ${jobId} cannot be restored by machine '${machine}': ` +
        (cause instanceof Error ? cause.message : String(cause)),
      { jobId, machine },
      { cause },
    );
  }
}

/**
 * A value a job must store (its output, progress, context, machine snapshot) that JSON cannot
 * hold: a BigInt, a cycle, a toJSON() that throws, an actor spawned from inline logic (it could
 * never be restored). Retrying cannot help: the job fails at once. `field` is the path to the
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
      'UNSERIALIZABLE_SNAPSHOT',
      `the job's ${what} cannot be stored as JSON: ${problem.reason}` +
        (problem.path ? ` at ${problem.path}` : '') +
        (problem.hint ? ` (${problem.hint})` : ''),
      { field: problem.path },
      options,
    );
  }
}

/** Thrown by work: requeue after `delayMs` without using up an attempt (e.g. a rate limit). */
export class RetryLaterError extends MachinistError {
  readonly delayMs: number;
  constructor(delayMs: number, message = `retry later in ${delayMs} ms`) {
    super('RETRY_LATER', message);
    if (!Number.isFinite(delayMs) || delayMs < 0)
      throw new TypeError('RetryLaterError: delayMs must be >= 0');
    this.delayMs = delayMs;
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

/** Lua replies `error_reply('CODE detail')`; this maps the code to its class. */
export function fromScriptError(err: unknown, ids: ErrorIds = {}): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const m = /^(?:ERR )?([A-Z_]+) ?(.*)$/.exec(message);
  if (!m) return err;
  const [, code, detail = ''] = m;
  switch (code) {
    case 'JOB_NOT_FOUND':
      return new JobNotFoundError(ids.jobId ?? detail, ids.queue);
    case 'JOB_FINISHED':
      return new JobFinishedError(ids.jobId ?? detail, detail.split(' ')[1] ?? 'finished');
    case 'LEASE_LOST':
      return new LeaseLostError(ids.jobId ?? detail);
    default:
      return err;
  }
}
