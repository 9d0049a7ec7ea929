// Every error code Machinist gives, in one place: what it means, the HTTP status the API answers
// it with (where the API can meet it) and, for a code that ends a job's attempt, whether the
// retry policy applies (`retryable`) or the job fails at once. `MachinistError.code` is typed as
// a key of this table, so a code made up inline does not compile; the Lua scripts' error replies
// are mapped to errors by `fromScriptError` (errors/scriptError.ts) through it. docs/errors.md
// shows it as a table, and test/repo/errorCodes.test.ts holds the three equal.
//
// Codes are wire format: they reach HTTP bodies, CLI output, stored job errors and webhooks.
// Rename one only with a note in the changelog; add freely.

export interface ErrorCodeInfo {
  /** One line: what went wrong. */
  readonly meaning: string;
  /** The HTTP status the API answers with, where the API can meet the code. */
  readonly http?: number;
  /** For a code that ends a job's attempt: true when the retry policy applies, false when the job fails at once. */
  readonly retryable?: boolean;
  /** A Lua script replies it (`redis.error_reply('CODE detail')`). */
  readonly lua?: true;
}

export const ERROR_CODES = {
  // Input refused before anything was written.
  INVALID_INPUT: {
    meaning: 'an input, option, query or body field is not acceptable; `field` names it',
    http: 400,
  },
  INVALID_SCHEDULE: {
    meaning:
      'a schedule cannot be run: a bad cron or time zone, everyMs below the floor, endAt before startAt; `field` names it',
    http: 400,
  },
  INVALID_JSON: { meaning: 'a body or text is not valid JSON', http: 400 },
  FORBIDDEN_KEY: { meaning: 'a JSON key is `__proto__`, `constructor` or `prototype`', http: 400 },
  TOO_DEEP: { meaning: 'a JSON body nests arrays and objects deeper than the limit', http: 400 },
  NOT_UTF8: { meaning: 'a text is not UTF-8' },
  HUGE_NUMBER: { meaning: 'a JSON number is past the double range (it would be stored as null)' },
  PAYLOAD_TOO_LARGE: { meaning: 'a request body is over the byte limit', http: 413 },
  UNSUPPORTED_MEDIA_TYPE: { meaning: 'a request body is not JSON (Content-Type)', http: 415 },
  BAD_REQUEST: { meaning: "another client error of the HTTP server's own (a malformed URL, a bad header)" },
  UNAUTHORIZED: { meaning: 'a bearer token is missing or not valid', http: 401 },
  BAD_SIGNATURE: {
    meaning: "a trigger's request has no valid signature (missing, not matching, or too old)",
    http: 401,
  },
  FORBIDDEN: { meaning: "the bearer token lacks the route's scope", http: 403 },
  INTERNAL: { meaning: 'an unforeseen server error (logged by the server, details not answered)', http: 500 },
  // Things that are not there, or not in the state asked for.
  NOT_FOUND: { meaning: 'no such route, dashboard file, chart or machine by that name', http: 404 },
  JOB_NOT_FOUND: { meaning: 'no job with that id (in that queue)', http: 404, lua: true },
  TRIGGER_NOT_FOUND: { meaning: 'no trigger by that name is declared on the server', http: 404 },
  UNKNOWN_QUEUE: { meaning: 'no queue of that name is known', http: 404 },
  NOT_DEAD_LETTER: { meaning: 'the job is not a dead letter', http: 404 },
  UNKNOWN_MACHINE: { meaning: 'no job machine of that name (or version) is registered', http: 400 },
  UNKNOWN_VERSION: {
    meaning: "a claimed job's machine version is not registered on the supervisor (and it has a snapshot)",
  },
  NO_CHART: { meaning: 'the machine was registered by a worker that publishes no chart' },
  JOB_FINISHED: { meaning: 'the job has already finished', http: 409, lua: true },
  QUEUE_NOT_EMPTY: { meaning: 'the queue still holds jobs', http: 409 },
  SCHEDULE_NOT_FOUND: { meaning: 'no schedule with that id', http: 404 },
  SCHEDULE_CONFLICT: {
    meaning: 'a schedule kept changing under a write (other writers won every try); try again',
    http: 409,
  },
  PARTITIONS_IN_USE: {
    meaning: "a queue's partition count cannot change while it holds jobs (docs/partitions.md)",
    http: 409,
  },
  // Definitions and start-up checks.
  INVALID_DEFINITION: {
    meaning: 'a defineJob/definePipeline option or a jobs list cannot be run; `field` names it',
  },
  INVALID_PIPELINE: { meaning: 'a pipeline machine cannot be persisted; `state` names the state node' },
  MACHINE_CHANGED: { meaning: 'a definition differs from the one registered for the same name and version' },
  RETENTION_TOO_SHORT: {
    meaning: "a retention setting is below the supervisor's safe floor; `field` names it",
  },
  EVICTING_REDIS: { meaning: "Redis maxmemory-policy is not 'noeviction' (an evicted job is lost)" },
  XSTATE_UNSUPPORTED: { meaning: 'the installed xstate is not one the pipelines support' },
  NOT_IN_PIPELINE: { meaning: 'fanOut was called outside a Machinist pipeline job' },
  HARNESS_NOT_IDLE: { meaning: "the test harness's runUntilIdle was still busy when its time passed" },
  // The stores.
  REDIS_UNAVAILABLE: {
    meaning: 'Redis did not take a call within its bound; `maybeApplied` says if it may land',
    http: 503,
    retryable: true,
  },
  REPLICATION_TIMEOUT: {
    meaning:
      "durability 'replicated': the master took an enqueue, fewer replicas than asked acknowledged it in time; `jobIds` name the jobs",
    http: 503,
    retryable: true,
  },
  NO_REPLICA: { meaning: "durability 'replicated' is set but the Redis master has no replica connected" },
  DATA_FILE_LOCKED: { meaning: "a MemoryStore's data file is held by another live process" },
  DATA_FILE_UNWRITABLE: {
    meaning: "a MemoryStore's data file cannot be written; no write is taken until it can",
    http: 503,
  },
  BAD_DATA_FILE: { meaning: "a MemoryStore's data file is not one of its format" },
  STORE_FORMAT_NEWER: { meaning: 'the store holds a data format newer than this code reads' },
  STORE_FORMAT_OLDER: { meaning: 'the store holds an older data format: run machinist migrate-store' },
  BAD_STORE_FORMAT: { meaning: "the store's format key holds no format version" },
  STORE_LAYOUT_UNKNOWN: {
    meaning: 'migrate-store found a record of a layout it does not know (nothing changed)',
  },
  STORE_MIGRATE_BUSY: {
    meaning: 'migrate-store: a breaking step, and supervisors are running on the store (nothing changed)',
  },
  STORE_COPY_TARGET_NOT_EMPTY: {
    meaning: 'migrate-store --to: the target already holds keys under the prefix (nothing copied)',
  },
  STORE_COPY_BUSY: { meaning: 'migrate-store --to: jobs are running on the source (nothing copied)' },
  STORE_COPY_CHANGED: {
    meaning: 'migrate-store --to: the source gained keys while it was copied (producers still running)',
  },
  LEASE_LOST: { meaning: "a worker's lease on the job has passed; it may no longer write it", lua: true },
  BAD_SCHEDULE: { meaning: 'a schedule write or claim the store refuses (why follows)', lua: true },
  BAD_ENQUEUE: { meaning: 'an enqueue op the store refuses (its index and why follow)', lua: true },
  BAD_COMMIT: { meaning: 'a commit op the store refuses (its index and why follow)', lua: true },
  BAD_SEND: { meaning: 'a send without an event, a type or an event id', lua: true },
  BAD_HEARTBEAT: { meaning: 'a heartbeat with a bad lease time or id/token pairs', lua: true },
  BAD_REAP: { meaning: 'a reap with a bad budget, retention or lock time', lua: true },
  BAD_SWEEP: { meaning: 'a sweep with a bad retention, limit or cap', lua: true },
  BAD_PURGE: { meaning: 'a dead-letter purge with a bad retention or limit', lua: true },
  BAD_CANCEL: { meaning: 'a cancel with a bad retention', lua: true },
  BAD_INGRESS: { meaning: 'an ingress drain op the store refuses (its index and why follow)', lua: true },
  BAD_FLOW: { meaning: "a queue's pause or limits change the store refuses (why follows)", lua: true },
  // Endings of a job's attempt (the stored error's code).
  TIMEOUT: { meaning: 'the attempt ran past its timeoutMs', retryable: true },
  STALLED: { meaning: 'the attempt reported no progress for its stallMs', retryable: true },
  LEASE_EXPIRED: {
    meaning: "the job's worker lease expired more often than maxLeaseRequeues allows",
    retryable: false,
  },
  NON_RETRYABLE: {
    meaning: 'the work threw NonRetryableError (without a code of its own)',
    retryable: false,
  },
  RETRY_LATER: {
    meaning: 'the work asked to run again after a delay, without using an attempt',
    retryable: true,
  },
  RATE_LIMITED: {
    meaning:
      'the work threw RateLimitedError: the job waits retryAfterMs, using no attempt; its queue holds its starts as long',
    retryable: true,
  },
  RETRY_LATER_EXHAUSTED: {
    meaning: 'the work asked to retry later more often than retry.retryLater.maxRetries',
    retryable: false,
  },
  UNRESTORABLE_SNAPSHOT: {
    meaning: 'the stored snapshot cannot be restored by its machine',
    retryable: false,
  },
  UNSERIALIZABLE_SNAPSHOT: {
    meaning: 'a value the job must store cannot be stored as JSON; `field` is its path',
    retryable: false,
  },
  UNKNOWN_STATE: { meaning: 'a stored snapshot names a state its machine does not have', retryable: false },
  UNREGISTERED_ACTOR: {
    meaning: 'a machine spawned an actor not registered in its setup({ actors })',
    retryable: false,
  },
  ACTION_FAILED: { meaning: "the machine's own code (an action, guard, mapper) threw", retryable: false },
  CHILD_FAILED: { meaning: 'a fanOut child failed or was cancelled under failFast', retryable: false },
  SPAWN_IN_COMPILED_PIPELINE: {
    meaning: 'an assign spawns an actor, which a compiled pipeline cannot run',
    retryable: false,
  },
  SANDBOX_EXITED: { meaning: "a sandboxed job's thread exited without an answer", retryable: true },
  SANDBOX_LOAD: { meaning: "a sandboxed job's work could not be found in its module", retryable: false },
  ABORTED: {
    meaning:
      "a running job's signal fired (timeout, stall, cancel, lease lost, shutdown); `reason` says which",
  },
  // Jobs set aside as broken (never run).
  BROKEN_RECORD: { meaning: 'a claimed job record lacks a field enqueue always writes' },
  UNDECODABLE: { meaning: "a claimed job's input or options are not valid JSON" },
  INPUT_TOO_DEEP: { meaning: "a claimed job's input nests deeper than the limit" },
  INPUT_TOO_LARGE: { meaning: "a claimed job's input is over the byte limit" },
  INGRESS_INVALID: { meaning: 'an ingress entry is not a valid job' },
  INGRESS_UNDECODABLE: { meaning: 'an ingress entry is not UTF-8 JSON' },
  INGRESS_TOO_LARGE: { meaning: 'an ingress entry is over its byte limit' },
  LUA_INCLUDE_MISSING: { meaning: 'a Lua script or include names an include that is not in lua/include/' },
  LUA_INCLUDE_CYCLE: { meaning: 'Lua includes need each other round (a cycle)' },
  // Internal signals, caught where they are raised; named so that every error has a code.
  NOT_COMPILABLE: {
    meaning:
      'internal: a pipeline uses a construct the compiled runtime does not reproduce (it runs on XState)',
  },
  CLIENT_LEFT: { meaning: "internal: a ?wait request's client disconnected" },
  DELIVERY_LEASE_LOST: { meaning: "internal: the webhook dispatcher's lease on a delivery chain passed" },
  CLI_ERROR: { meaning: 'a CLI problem printed as is, with its own exit code' },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A code of the registry. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Each code by name, to write `CODE.JOB_NOT_FOUND` rather than a string made up inline. */
export const CODE = Object.freeze(
  Object.fromEntries(Object.keys(ERROR_CODES).map((k) => [k, k])) as { readonly [K in ErrorCode]: K },
);

/** Whether `code` is one of the registry. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

/** The HTTP status the API answers a code with, when the registry gives one. */
export function httpStatusOf(code: string): number | undefined {
  return isErrorCode(code) ? (ERROR_CODES[code] as ErrorCodeInfo).http : undefined;
}
