// Listing jobs by status, machine or parent: pages read from the queue's indexes, filtered,
// with a cursor "<index position>:<offset>" that a later call resumes from; and the indexes'
// sizes (`counts`).

import type { JobRecord, JobStatus, ListQuery } from '../types.js';
import { COUNTED, type QueueCounts } from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { decodeJob, JOB_FIELDS } from './decodeJob.js';

type IndexName = 'active' | 'queued' | 'delayed' | 'waiting' | 'done' | 'failed' | 'cancelled';
/** Statuses in the order `list` walks them when no status is given, with the index holding each. */
const LIST_ORDER: readonly IndexName[] = [
  'active',
  'queued',
  'delayed',
  'waiting',
  'done',
  'failed',
  'cancelled',
];

function isFinishedIndex(name: IndexName): boolean {
  return name === 'done' || name === 'failed' || name === 'cancelled';
}

export async function getMany(ctx: RedisContext, queue: string, ids: string[]): Promise<JobRecord[]> {
  if (ids.length === 0) return [];
  const pipe = ctx.redis.pipeline();
  for (const id of ids) pipe.hmget(ctx.keys(queue).job(id), ...JOB_FIELDS);
  const res = (await pipe.exec()) ?? [];
  const out: JobRecord[] = [];
  res.forEach(([, values], i) => {
    const rec = decodeJob(ids[i]!, queue, values as (string | null)[]);
    if (rec) out.push(rec);
  });
  return out;
}

export async function list(
  ctx: RedisContext,
  query: ListQuery,
): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
  const k = ctx.keys(query.queue);
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 1000);
  // Cursor: "<index position in LIST_ORDER or 'c'>:<offset>".
  const [part, offsetText] = (query.cursor ?? '').split(':');
  let offset = Number(offsetText ?? 0) || 0;
  const sources: { key: string; rev: boolean; status?: JobStatus }[] = [];
  if (query.parentId) {
    sources.push({ key: k.children(query.parentId), rev: false, status: query.status });
  } else if (query.status) {
    const map: Record<JobStatus, IndexName[]> = {
      queued: ['queued', 'delayed'],
      loading: ['active'],
      working: ['active'],
      waiting: ['waiting'],
      done: ['done'],
      failed: ['failed'],
      cancelled: ['cancelled'],
    };
    for (const name of map[query.status])
      sources.push({ key: k[name], rev: isFinishedIndex(name), status: query.status });
  } else {
    for (const name of LIST_ORDER) sources.push({ key: k[name], rev: isFinishedIndex(name) });
  }
  let si = Number(part ?? 0) || 0;
  const jobs: JobRecord[] = [];
  // Filters are applied to pages read from the index; scanning is bounded per call.
  let scanned = 0;
  while (si < sources.length && jobs.length < limit && scanned < limit * 20) {
    const src = sources[si]!;
    const page = limit * 2;
    const ids = src.rev
      ? await ctx.redis.zrevrange(src.key, offset, offset + page - 1)
      : await ctx.redis.zrange(src.key, String(offset), String(offset + page - 1));
    scanned += ids.length;
    const recs = await getMany(ctx, query.queue, ids);
    let used = 0;
    for (const id of ids) {
      used++;
      const r = recs.find((x) => x.id === id);
      if (!r) continue;
      if (src.status && r.status !== src.status) continue;
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

/** How many entries each of the queue's indexes holds (one pipelined ZCARD each). */
export async function counts(ctx: RedisContext, queue: string): Promise<QueueCounts> {
  const k = ctx.keys(queue);
  const pipe = ctx.redis.pipeline();
  for (const name of COUNTED) pipe.zcard(k[name]);
  const res = (await pipe.exec()) ?? [];
  const out = {} as QueueCounts;
  COUNTED.forEach((name, i) => {
    const [err, n] = res[i] ?? [null, 0];
    if (err) throw err;
    out[name] = Number(n);
  });
  return out;
}

/** Jobs read per round trip by countUnfinished. */
const COUNT_PAGE = 1000;

/**
 * How many jobs of `machine` at `version` are in the queue's unfinished indexes (queued,
 * delayed, active, waiting; a parked job with a wake time is in two of them, counted once).
 * One HMGET per job, pipelined a page at a time.
 */
export async function countUnfinished(
  ctx: RedisContext,
  queue: string,
  machine: string,
  version: number,
): Promise<number> {
  const k = ctx.keys(queue);
  const seen = new Set<string>();
  let n = 0;
  for (const index of [k.active, k.queued, k.delayed, k.waiting]) {
    for (let offset = 0; ; offset += COUNT_PAGE) {
      const ids = await ctx.redis.zrange(index, String(offset), String(offset + COUNT_PAGE - 1));
      const fresh = ids.filter((id) => !seen.has(id));
      for (const id of fresh) seen.add(id);
      if (fresh.length > 0) {
        const pipe = ctx.redis.pipeline();
        for (const id of fresh) pipe.hmget(k.job(id), 'm', 'v');
        for (const [err, values] of (await pipe.exec()) ?? []) {
          if (err) throw err;
          const [m, v] = values as (string | null)[];
          if (m === machine && Number(v) === version) n++;
        }
      }
      if (ids.length < COUNT_PAGE) break;
    }
  }
  return n;
}

export { COUNTED, type QueueCounts };
