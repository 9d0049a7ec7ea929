// MemoryStore's reads of job records (the JobRecords and DeadLetters roles, and FanOut's reads):
// each one `op` that writes nothing, so it sees one clock reading and no half-done write.

import { JobNotFoundError } from '../../errors.js';
import { listPages, type IndexPages } from '../listPages.js';
import {
  deadLetterOf,
  type AuditEntry,
  type BrokenEntry,
  type DeadLetter,
  type JobRecord,
  type JobStatus,
  type ListQuery,
} from '../types.js';
import { toRecord } from './MemoryJob.js';
import type { QueueState } from './QueueState.js';
import type { MemoryCore } from './MemoryCore.js';

export function getJob(core: MemoryCore, id: string, queue?: string): Promise<JobRecord | null> {
  return core.op(() => {
    const found = core.find(id, queue);
    return found ? toRecord(found.job, found.q.name) : null;
  }, false);
}

/** The queue holding job `id` (JobRecords.queueOf), or null. */
export function queueOf(core: MemoryCore, id: string): Promise<string | null> {
  return core.op(() => core.find(id, undefined)?.q.name ?? null, false);
}

export function jobStatus(
  core: MemoryCore,
  id: string,
  queue: string,
): Promise<{ status: JobStatus; cancelRequested: boolean } | null> {
  return core.op(() => {
    const j = core.liveJob(core.queueData.get(queue), id);
    return j ? { status: j.status, cancelRequested: j.cancelRequested === true } : null;
  }, false);
}

export function getLog(core: MemoryCore, id: string, queue?: string): Promise<AuditEntry[]> {
  return core.op(() => {
    const q = core.queueOf(id, queue);
    const j = core.liveJob(q, id);
    if (!j) throw new JobNotFoundError(id, q.name);
    return j.log.map((e) => ({ ...e }));
  }, false);
}

/** The queue's indexes as listPages and searchPages read them. */
export function pagesOf(core: MemoryCore, q: QueueState): IndexPages {
  return {
    range: async (source, offset, count, rev) => {
      if ('keyLines' in source)
        return [
          ...[...q.flow.waiting.keys()].sort().map((key) => q.flow.waiting.get(key)!),
          ...[...q.flow.gateLines.keys()].sort().map((g) => q.flow.gateLines.get(g)!),
        ]
          .flatMap((line) => line.range(0, line.size).map((e) => e.member))
          .slice(offset, offset + count);
      const z = 'index' in source ? q.index[source.index] : q.children.get(source.childrenOf)?.ids;
      return z ? z.range(offset, count, rev).map((e) => e.member) : [];
    },
    records: (ids) =>
      core.op(
        () =>
          ids.flatMap((id) => {
            const j = core.liveJob(q, id);
            return j ? [toRecord(j, q.name)] : [];
          }),
        false,
      ),
  };
}

export function list(
  core: MemoryCore,
  query: ListQuery,
): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
  let q: QueueState;
  try {
    q = core.queue(query.queue);
  } catch (err) {
    return Promise.reject(err);
  }
  return listPages(pagesOf(core, q), query);
}

export function deadLetters(core: MemoryCore, queue: string, limit: number): Promise<DeadLetter[]> {
  return core.op(() => {
    const q = core.queue(queue);
    return q.index.dead.range(0, limit, true).flatMap(({ member }) => {
      const j = core.liveJob(q, member);
      if (!j) return [];
      return [deadLetterOf(toRecord(j, queue), queue)];
    });
  }, false);
}

export function broken(core: MemoryCore, queue: string, limit: number): Promise<BrokenEntry[]> {
  return core.op(() => {
    const q = core.queue(queue);
    return q.index.broken.range(0, limit, true).map(({ member, score }) => {
      let reason = q.brokenWhy.get(member);
      if (reason === undefined) {
        const e = core.liveJob(q, member)?.error;
        reason = e ? (toRecord(core.liveJob(q, member)!, queue).error?.message ?? e) : 'unknown';
      }
      return { id: member, queue, reason, at: score };
    });
  }, false);
}

export function fanGroups(
  core: MemoryCore,
  queue: string,
  parentId: string,
): Promise<{ group: string; total: number; finished: number }[]> {
  return core.op(() => {
    const q = core.queue(queue);
    return (core.liveJob(q, parentId)?.fanGroups ?? []).map((g) => ({
      group: g.group,
      total: g.total,
      finished: core.lc.fans.liveFan(q, parentId, g.group)?.finished ?? 0,
    }));
  }, false);
}

export function childIds(
  core: MemoryCore,
  queue: string,
  parentId: string,
  offset: number,
  limit: number,
): Promise<string[]> {
  return core.op(() => {
    const c = core.queue(queue).children.get(parentId);
    if (!c || (c.expiresAt !== undefined && c.expiresAt <= core.opNow)) return [];
    return c.ids.range(offset, limit).map((e) => e.member);
  }, false);
}
