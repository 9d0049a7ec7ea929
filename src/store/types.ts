// The Store: every durable operation the runtime and the client need, each one atomic, split
// into ROLES (src/store/roles/), one small interface each. `Store` is the composition of the
// required ones; the optional roles (Ingress, WebhookHost, ControlChannel, ConnectionEvents,
// ServerChecks, HealthReport, JobSearch, Fleet) a backend has whole or not at all, and callers ask with their
// guard (`hasIngress(store)`, ...). docs/backends.md says how to write a third backend.
//
// RedisStore is the production backend; MemoryStore (src/store/memory/) the embedded one. Both
// pass the conformance suites of every role they have (test/store/conformance/) and run side by
// side on seeded random sequences of calls with every answer and record compared
// (test/store/differential.test.ts); the pipeline behaviour suite and test/supervisor/ run on
// both; test/redis/ and test/children/ run against RedisStore.
//
// ARGUMENT ORDER: a call on a queue's work (enqueue, commit, heartbeat, reap, counts, ...) takes
// `queue` first; a call on one job (getJob, cancel, watchJob, readInbox, fanOpen, ...) takes the
// job's id first, then `queue`, the locator that finds it (send, fanGroups and childIds
// included: for childIds, the queue the children live on).
//
// This file also re-exports the record types from the files that define them, so importers of
// types.ts need not know where each lives.

import type { StoreHandle } from './roles/StoreHandle.js';
import type { WorkQueue } from './roles/WorkQueue.js';
import type { FanOut } from './roles/FanOut.js';
import type { JobRecords } from './roles/JobRecords.js';
import type { DeadLetters } from './roles/DeadLetters.js';
import type { ResultWatch } from './roles/ResultWatch.js';
import type { EventLog } from './roles/EventLog.js';
import type { Registry } from './roles/Registry.js';
import type { FlowControl } from './roles/FlowControl.js';

export { FINISHED, type JobStatus } from './jobStatus.js';
export type { QueueEvent } from './queueEvent.js';
export {
  PRIORITY_BAND,
  BAND_PRIORITY_NAMES,
  type Priority,
  type NewJob,
  type EnqueueResult,
  type Dedupe,
  type DedupeMode,
} from './newJob.js';
export type { JobRecord, AuditEntry, ListQuery, CancelOutcome } from './jobRecord.js';
export { deadLetterOf, type DeadLetter, type BrokenEntry } from './deadLetter.js';
export type { ClaimedJob, CommitOp, ClaimRequest, CommitResult, LeaseState } from './commitTypes.js';

export type { StoreHandle } from './roles/StoreHandle.js';
export type { WorkQueue, WorkWaiter, QueuesWaiter, ReapResult } from './roles/WorkQueue.js';
export type { FanOut, FanState, RelayResult } from './roles/FanOut.js';
export type { JobRecords } from './roles/JobRecords.js';
export type { DeadLetters } from './roles/DeadLetters.js';
export type { ResultWatch } from './roles/ResultWatch.js';
export type { EventLog } from './roles/EventLog.js';
export { COUNTED, type Registry, type QueueCounts, type MachineInfo } from './roles/Registry.js';
export {
  hasSchedules,
  type Schedules,
  type StoredSchedule,
  type ScheduleClaim,
  type ScheduleWrite,
  type ScheduleStatePart,
  RECENT_KEPT,
} from './roles/Schedules.js';
export type {
  FlowControl,
  QueueFlow,
  QueueFlowChange,
  QueueLimits,
  RateLimit,
  RateMode,
  KeyStrategy,
  Fairness,
  KeyUse,
  GateUse,
} from './roles/FlowControl.js';
export { hasIngress, type Ingress, type IngressDecision, type IngressDrained } from './roles/Ingress.js';
export { hasWebhooks, type WebhookHost } from './roles/WebhookHost.js';
export { hasControlChannel, type ControlChannel } from './roles/ControlChannel.js';
export {
  hasConnectionEvents,
  type ConnectionEvents,
  type ConnectionChange,
} from './roles/ConnectionEvents.js';
export { hasServerChecks, type ServerChecks } from './roles/ServerChecks.js';
export { hasJobSearch, type JobSearch } from './roles/JobSearch.js';
export { hasFleet, type Fleet, type FleetWorker, type WorkerFacts, type ReapedJob } from './roles/Fleet.js';
export type { SearchQuery, SearchPage, FieldFilter, FilterOp } from './search/searchQuery.js';
export { hasHealthReport, type HealthReport } from './roles/HealthReport.js';
export { hasMinuteTallies, type MinuteTallies } from './roles/MinuteTallies.js';

/**
 * A whole backend: every required role. Client calls (enqueue, reads, cancel, send, watchJob,
 * readResults, dead-letter handling, machines, queues) reject with REDIS_UNAVAILABLE when the
 * backend does not answer within its bound; a supervisor's calls (commit, heartbeat, reap,
 * waitForWork, fanOpen, readInbox, relayOutbox, jobStatus, registerMachines) wait for it without
 * limit. A consumer that needs only some roles takes their intersection (e.g. the metrics take
 * `Registry & StoreHandle`).
 */
export interface Store
  extends
    StoreHandle,
    WorkQueue,
    FanOut,
    JobRecords,
    DeadLetters,
    ResultWatch,
    EventLog,
    Registry,
    FlowControl {}
