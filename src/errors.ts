// Every error Machinist raises: a `code` of the registry (errorCodes.ts) and the ids it
// concerns, so callers match on codes, never on message text. This file is the one door to
// them: every layer imports src/errors.ts, never a file of src/errors/, where the classes sit by
// concern. `toStoredError` (errors/storedError.ts) is the one place a thrown value becomes JSON;
// `fromScriptError` (errors/scriptError.ts) the one place a Lua error reply becomes an error.

export { type ErrorIds, MachinistError, ofBatchItem, type UserErrorCode } from './errors/MachinistError.js';
export { type InputIssue, InputSchemaError, ValidationError } from './errors/inputErrors.js';
export {
  DefinitionError,
  MachineChangedError,
  PipelineDefinitionError,
  RetentionTooShortError,
  UnknownMachineError,
} from './errors/definitionErrors.js';
export {
  JobFinishedError,
  JobNotFoundError,
  LeaseLostError,
  PartitionsInUseError,
  TimeoutError,
} from './errors/jobCallErrors.js';
export {
  DataFileLockedError,
  DataFileUnwritableError,
  LuaIncludeError,
  RedisUnavailableError,
  ReplicationTimeoutError,
  StoreFormatError,
} from './errors/storeErrors.js';
export {
  NonRetryableError,
  RateLimitedError,
  RetryLaterError,
  RetryLaterExhaustedError,
  SandboxError,
} from './errors/workErrors.js';
export {
  MachineActionError,
  UnknownStateError,
  UnregisteredActorError,
  UnrestorableSnapshotError,
  UnserializableSnapshotError,
} from './errors/pipelineErrors.js';
export {
  InvalidScheduleError,
  ScheduleConflictError,
  ScheduleNotFoundError,
} from './errors/scheduleErrors.js';
export { type StoredError, toError, toStoredError } from './errors/storedError.js';
export { fromScriptError } from './errors/scriptError.js';
