// Machinist's public API: named exports only.
export { defineJob } from './runtime/defineJob.js';
export type { JobDefinition, WorkArgs, LoadArgs, DefineJobOptions } from './runtime/defineJob.js';
export type { RetryPolicy, BackoffPolicy } from './runtime/backoff.js';
export type { RecordMode } from './runtime/recordMode.js';
export type { SandboxOption, SandboxOptions } from './runtime/sandbox/sandboxSpec.js';
export { definePipeline } from './pipeline/definePipeline.js';
export type { DefinePipelineOptions } from './pipeline/definePipeline.js';
export type { PipelineDefinition } from './pipeline/PipelineDefinition.js';
export { step } from './pipeline/step.js';
export { explainNotCompiled } from './pipeline/compileSteps.js';
export { fanOut, ChildJobFailedError } from './pipeline/fanOut.js';
export type { FanOutInput, FanOutJob, ChildOutcome } from './pipeline/fanOut.js';
export type { StepArgs } from './pipeline/step.js';
export type { MigrateFunction, MigratedSnapshot } from './pipeline/migrate.js';
export { renameStates } from './pipeline/renameStates.js';
export type { StoredTimer as PipelineTimer } from './pipeline/timers.js';
export { Supervisor } from './supervisor/Supervisor.js';
export type { SupervisorOptions, StopResult, ServedQueue } from './supervisor/Supervisor.js';
export { Client } from './client/Client.js';
export type { ScheduleInfo } from './client/schedules/ScheduleClient.js';
export type {
  OverlapPolicy,
  ScheduleOptions,
  ScheduleSpec,
  TimeInput,
} from './client/schedules/scheduleSpec.js';
export type { ScheduleAction, ScheduleRecord } from './client/schedules/scheduleRecord.js';
export { scheduledJobInfo } from './client/schedules/scheduledJobId.js';
export { nextTick, upcomingTicks } from './client/schedules/scheduleTicks.js';
export type {
  ClientOptions,
  EnqueueInfo,
  EnqueueWaitInfo,
  SendOptions,
  WaitOptions,
} from './client/Client.js';
export type {
  JobId,
  InputOf,
  OutputOf,
  EnqueueItem,
  EnqueueItemFor,
  JobRef,
  InputFor,
  OutputFor,
} from './client/jobTypes.js';
export type { AnyDefinition } from './runtime/registry.js';
export type { EnqueueOptions, WebhookOptions } from './client/validateEnqueue.js';
export { MAX_DELAY_MS } from './client/validateEnqueue.js';
export { verifyWebhook } from './webhooks/signature.js';
export {
  defineTrigger,
  type TriggerSpec,
  type TriggerDefinition,
  type TriggerVerify,
  type TriggerDedupe,
  type TriggerRequest,
} from './triggers/defineTrigger.js';
export type { VerifyWebhookArgs } from './webhooks/signature.js';
export type { WebhookSettings } from './webhooks/webhookSettings.js';
export { MachinistMetrics } from './metrics/MachinistMetrics.js';
export type { MachinistMetricsOptions } from './metrics/MachinistMetrics.js';
export { registerMetrics, metricsPlugin } from './metrics/metricsPlugin.js';
export type { MetricsPluginOptions } from './metrics/metricsPlugin.js';
export { startMetricsServer } from './metrics/metricsServer.js';
export type { MetricsServer } from './metrics/metricsServer.js';
export { SERIES as METRIC_SERIES, WEBHOOK_RESULTS } from './metrics/seriesNames.js';
export type { WebhookResult } from './metrics/seriesNames.js';
export type {
  JobObserver,
  AttemptWatch,
  AttemptInfo,
  AttemptEnd,
  DeliveryResult,
} from './runtime/JobObserver.js';
export { RedisStore } from './store/redis/RedisStore.js';
export type { RedisStoreOptions } from './store/redis/RedisStore.js';
export { MemoryStore } from './store/memory/MemoryStore.js';
export type { MemoryStoreOptions } from './store/memory/MemoryStore.js';
export type {
  Store,
  JobRecord,
  JobStatus,
  Priority,
  AuditEntry,
  DeadLetter,
  BrokenEntry,
  ListQuery,
  IngressDecision,
  IngressDrained,
  // The store's roles, for a backend of one's own (docs/backends.md).
  StoreHandle,
  WorkQueue,
  QueuesWaiter,
  FanOut,
  JobRecords,
  DeadLetters,
  ResultWatch,
  EventLog,
  Registry,
  Ingress,
  WebhookHost,
  ControlChannel,
  ConnectionEvents,
  ServerChecks,
  HealthReport,
} from './store/types.js';
export {
  MachinistError,
  ValidationError,
  InputSchemaError,
  DefinitionError,
  PipelineDefinitionError,
  UnknownMachineError,
  JobNotFoundError,
  PartitionsInUseError,
  InvalidScheduleError,
  ScheduleNotFoundError,
  ScheduleConflictError,
  JobFinishedError,
  LeaseLostError,
  RetentionTooShortError,
  TimeoutError,
  UnserializableSnapshotError,
  RedisUnavailableError,
  ReplicationTimeoutError,
  DataFileLockedError,
  DataFileUnwritableError,
  StoreFormatError,
  UnknownStateError,
  MachineChangedError,
  UnregisteredActorError,
  MachineActionError,
  UnrestorableSnapshotError,
  NonRetryableError,
  RetryLaterError,
  RateLimitedError,
  SandboxError,
  RetryLaterExhaustedError,
  toStoredError,
} from './errors.js';
export type { StoredError, InputIssue, UserErrorCode } from './errors.js';
export { ERROR_CODES, CODE } from './errorCodes.js';
export type { ErrorCode, ErrorCodeInfo } from './errorCodes.js';
export type { InputSchema } from './runtime/checkInput.js';
export { jobMachine } from '../machines/job.js';
export { createServer, serverMetrics } from './http/createServer.js';
export type { ServerOptions } from './http/createServer.js';
export { dashboardPlugin } from './dashboard/dashboardPlugin.js';
export type { DashboardOptions } from './dashboard/dashboardPlugin.js';
export type { TokenSpec, Scope } from './http/auth.js';
export {
  machineGraph,
  chartFor,
  layoutGraph,
  jobMarks,
  nextEvents,
  toMermaid,
  toDot,
  toSvg,
  toJson,
} from './chart/index.js';
export type { MachineGraph, GraphNode, GraphEdge, ChartMarks, ChartLayout } from './chart/index.js';
