// A job as MemoryStore holds it: the fields of RedisStore's job hash, under names that say what
// they are (the hash's field in each comment), and its decoding into a JobRecord through the same
// decodeJob that reads the hash, so both stores answer reads alike.

import type { AuditEntry, JobRecord, JobStatus } from '../types.js';
import { decodeJob } from '../decodeJob.js';
import { LOG_CAP } from '../storeConstants.js';

export interface MemoryJob {
  id: string;
  machine: string; // m
  version: number; // v
  status: JobStatus; // st
  state?: string; // s (JSON)
  snapshot?: string; // sn (JSON)
  input: string; // in (JSON)
  output?: string; // o (JSON)
  error?: string; // e (JSON)
  attempt?: number; // a
  maxAttempts: number; // ma
  leaseRequeues?: number; // lr
  retryLaters?: number; // rl
  band: number; // pr
  progress?: string; // p (JSON)
  parentId?: string; // par
  parentQueue?: string; // pq ('' when the parent's queue is this one)
  group?: string; // pg
  index?: number; // pi
  runAt?: number; // ra
  createdAt: number; // ca
  updatedAt?: number; // ua
  finishedAt?: number; // fa
  cancelRequested?: boolean; // cx
  claimedAt?: number; // ct
  token?: string; // tk
  queueScore?: number; // qs: its place in line
  idempotencyKey?: string; // ik
  dedupeKey?: string; // dk
  options?: string; // opt
  /** A minimal record (rm): no audit entries or stream entries for its moves; deleted as it ends done. */
  minimal?: boolean; // rm
  concurrencyKey?: string; // ck
  resume?: string; // rs: the snapshot a redrive resumes from
  fanGroups?: { group: string; total: number }[]; // fg
  fanInWake?: boolean; // fw
  inboxConsumed?: number; // io
  /** Events sent, and their ids (inbox:<id>, inboxids:<id>); absent until the first (ib). The
   * ids stay once the job has ended (a repeated send is answered as delivered), the inbox not. */
  inbox?: string[];
  inboxIds?: Set<string>;
  watchers?: string[]; // wt
  log: AuditEntry[]; // l1.., ls
  /** A purged dead letter's expiry (PEXPIRE), in store time. */
  expiresAt?: number;
}

const text = (v: number | string | undefined): string | null => (v === undefined ? null : String(v));

/** The job as a JobRecord: its fields laid out as decodeJob reads a job hash (JOB_FIELDS order). */
export function toRecord(job: MemoryJob, queue: string): JobRecord {
  return decodeJob(job.id, queue, [
    job.machine,
    String(job.version),
    job.status,
    text(job.state),
    text(job.snapshot),
    job.input,
    text(job.output),
    text(job.error),
    text(job.attempt),
    String(job.maxAttempts),
    text(job.leaseRequeues),
    job.band === 2 ? null : String(job.band),
    text(job.progress),
    text(job.parentId),
    text(job.runAt),
    String(job.createdAt),
    text(job.updatedAt),
    text(job.finishedAt),
    job.cancelRequested ? '1' : null,
    text(job.claimedAt),
  ])!;
}

/** Appends audit entries (JSON objects without "at", as commit ops carry them), stamped `at`. */
export function appendLog(job: MemoryJob, at: number, entries: readonly string[]): void {
  for (const e of entries) job.log.push(toEntry(at, e));
  if (job.log.length > LOG_CAP) job.log.splice(0, job.log.length - LOG_CAP);
}

/** One entry; a compacted run of states (`then`, encodeOps.ts) is not used here: one per state. */
function toEntry(at: number, e: string): AuditEntry {
  return { at, ...(JSON.parse(e) as Omit<AuditEntry, 'at'>) } as AuditEntry;
}
