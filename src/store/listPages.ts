// Listing jobs by status, machine or parent, for every backend: pages read from a queue's
// indexes, filtered, with a cursor "<source position>:<offset>" that a later call resumes from.
// RedisStore (redis/listJobs.ts) and MemoryStore read their indexes through `IndexPages`; the
// walk, the filters and the cursor are this one function's.

import type { JobRecord, JobStatus, ListQuery } from './types.js';

export type IndexName = 'active' | 'queued' | 'delayed' | 'waiting' | 'done' | 'failed' | 'cancelled';

/**
 * Where a page of ids comes from: one of the queue's status indexes, a parent's children, or the
 * queue's KEY LINES (the jobs set aside in their concurrency key's line, ckwait:<key>, keys in
 * order: queued jobs that are in no index; lua/include/lcFlow.lua).
 */
export type ListSource = { index: IndexName } | { childrenOf: string } | { keyLines: true };

export interface IndexPages {
  /** Ids from `offset` on (`count` at most), oldest first, or newest first when `rev`. */
  range(source: ListSource, offset: number, count: number, rev: boolean): Promise<string[]>;
  /** The records of those ids that exist, in any order. */
  records(ids: string[]): Promise<JobRecord[]>;
}

/** Statuses in the order `list` walks them when no status is given. */
export const LIST_ORDER: readonly IndexName[] = [
  'active',
  'queued',
  'delayed',
  'waiting',
  'done',
  'failed',
  'cancelled',
];

export const STATUS_INDEXES: Record<JobStatus, IndexName[]> = {
  queued: ['queued', 'delayed'],
  loading: ['active'],
  working: ['active'],
  waiting: ['waiting'],
  done: ['done'],
  failed: ['failed'],
  cancelled: ['cancelled'],
};

/** Finished indexes list newest first. */
export const isFinishedIndex = (name: IndexName): boolean =>
  name === 'done' || name === 'failed' || name === 'cancelled';

export async function listPages(
  pages: IndexPages,
  query: ListQuery,
): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 1000);
  const [part, offsetText] = (query.cursor ?? '').split(':');
  let offset = Number(offsetText ?? 0) || 0;
  const sources: { source: ListSource; rev: boolean; status?: JobStatus }[] = [];
  if (query.parentId) {
    sources.push({ source: { childrenOf: query.parentId }, rev: false, status: query.status });
  } else if (query.status) {
    for (const index of STATUS_INDEXES[query.status])
      sources.push({ source: { index }, rev: isFinishedIndex(index), status: query.status });
    if (query.status === 'queued') sources.push({ source: { keyLines: true }, rev: false, status: 'queued' });
  } else {
    for (const index of LIST_ORDER) {
      sources.push({ source: { index }, rev: isFinishedIndex(index) });
      // Queued jobs set aside in their key's line list with the queued ones.
      if (index === 'delayed') sources.push({ source: { keyLines: true }, rev: false, status: 'queued' });
    }
  }
  let si = Number(part ?? 0) || 0;
  const jobs: JobRecord[] = [];
  // Filters are applied to pages read from the index; scanning is bounded per call.
  let scanned = 0;
  while (si < sources.length && jobs.length < limit && scanned < limit * 20) {
    const src = sources[si]!;
    const page = limit * 2;
    const ids = await pages.range(src.source, offset, page, src.rev);
    scanned += ids.length;
    const recs = new Map((await pages.records(ids)).map((r) => [r.id, r]));
    let used = 0;
    for (const id of ids) {
      used++;
      const r = recs.get(id);
      if (!r) continue;
      if (src.status && r.status !== src.status) continue;
      // A parked job with a wake time sits in `delayed` as well as `waiting`: list it once, from
      // the index its status belongs to.
      if ('index' in src.source && !STATUS_INDEXES[r.status].includes(src.source.index)) continue;
      if (query.machine && r.machine !== query.machine) continue;
      jobs.push(r);
      if (jobs.length >= limit) break;
    }
    offset += used;
    if (ids.length < page && used === ids.length) {
      si++;
      offset = 0;
    }
  }
  return { jobs, cursor: si < sources.length ? `${si}:${offset}` : null };
}

/**
 * Ids `offset` .. `offset + count` of lines laid end to end, given each line's size, as the
 * slices to read: [line index, start, stop] (stop inclusive), for a source made of several.
 */
export function sliceLines(
  sizes: readonly number[],
  offset: number,
  count: number,
): [number, number, number][] {
  const out: [number, number, number][] = [];
  let skip = offset;
  let left = count;
  for (let i = 0; i < sizes.length && left > 0; i++) {
    const n = sizes[i]!;
    if (skip >= n) {
      skip -= n;
      continue;
    }
    const take = Math.min(n - skip, left);
    out.push([i, skip, skip + take - 1]);
    left -= take;
    skip = 0;
  }
  return out;
}
