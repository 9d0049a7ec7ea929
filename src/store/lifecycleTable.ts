// The lifecycle table both stores move jobs by: the `from -> to` edges, with the event of
// machines/job.ts that makes each. MemoryStore reads it here; RedisStore's Lua gets EDGES, FINAL
// and UPDATABLE generated from it (src/store/redis/luaConstants.ts), so there is no copy.
// test/lifecycle/lifecycleTable.test.ts evaluates the Lua table in Redis and requires it equal
// to this one, key for key, as it requires both equal to the machine.

import type { JobStatus } from './types.js';

export const EDGES: Readonly<Record<JobStatus, Readonly<Partial<Record<JobStatus, string>>>>> = {
  queued: { loading: 'CLAIM', working: 'CLAIM', cancelled: 'CANCEL' },
  loading: { working: 'LOADED', queued: 'FAIL', failed: 'FAIL', cancelled: 'CANCEL' },
  working: { done: 'SUCCEED', queued: 'FAIL', failed: 'FAIL', waiting: 'PARK', cancelled: 'CANCEL' },
  waiting: { queued: 'WAKE', cancelled: 'CANCEL' },
  done: {},
  failed: { queued: 'REDRIVE' },
  cancelled: {},
};

export const FINAL: ReadonlySet<JobStatus> = new Set(['done', 'failed', 'cancelled']);
/** Statuses a write may keep (a checkpoint: progress, snapshot, inbox position). */
export const UPDATABLE: ReadonlySet<JobStatus> = new Set(['loading', 'working']);

/** Why a move is refused: no such job, THE FENCE, or not an edge from the job's status. */
export type Refusal = 'missing' | 'fence' | 'status';

/**
 * lcGuard's rules, in its order: the job exists; a worker's write carries the job's lease token
 * (`token` undefined: a move no worker makes: cancel, send, reap, redrive); the move is an edge
 * of EDGES (or keeps a status a write may keep, or requeues a queued job in place).
 */
export function guardMove(
  job: { status: JobStatus; token?: string } | undefined,
  to: JobStatus,
  token: string | undefined,
): Refusal | null {
  if (!job) return 'missing';
  if (token !== undefined && (token === '' || job.token !== token)) return 'fence';
  if (job.status === to) return UPDATABLE.has(to) || to === 'queued' ? null : 'status';
  if (EDGES[job.status][to] !== undefined) return null;
  // LOADED then SUCCEED, the LOADED checkpoint superseded by the done before it was sent.
  if (job.status === 'loading' && to === 'done' && token !== undefined) return null;
  return 'status';
}
