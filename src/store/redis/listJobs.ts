// Listing jobs on Redis: the queue's zsets read a page at a time for listPages.ts (which owns the
// walk, the filters and the cursor); and the indexes' sizes (`counts`).

import type { JobRecord, ListQuery } from '../types.js';
import { listPages, sliceLines, type IndexPages } from '../listPages.js';
import { COUNTED, type QueueCounts } from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { decodeJob, JOB_FIELDS } from '../decodeJob.js';
import { F, storedVersion } from '../recordSchema.js';
import { queuedIds, queuedSize, queueQueuedSize } from './readyLine.js';

/** The queue's indexes as listPages reads them (zsets; children by their index in the fan-out). */
export function pagesOf(ctx: RedisContext, queue: string): IndexPages {
  const k = ctx.keys(queue);
  return {
    range: (source, offset, count, rev) => {
      if ('keyLines' in source) return keyLineIds(ctx, queue, offset, count);
      // The runnable line: the zset and the ready list (readyLine.ts), oldest first.
      if ('index' in source && source.index === 'queued') return queuedIds(ctx, k, offset, count);
      const key = 'index' in source ? k[source.index] : k.children(source.childrenOf);
      return rev
        ? ctx.redis.zrevrange(key, offset, offset + count - 1)
        : ctx.redis.zrange(key, String(offset), String(offset + count - 1));
    },
    records: (ids) => getMany(ctx, queue, ids),
  };
}

/**
 * The queue's lines and their sizes: each concurrency key's (ckkeys lists the keys with one),
 * then each machine gate's (gkeys; lua/include/lcGate.lua), as their zset keys.
 */
async function keyLines(ctx: RedisContext, queue: string): Promise<{ keys: string[]; sizes: number[] }> {
  const k = ctx.keys(queue);
  const [ck, gates] = await Promise.all([
    ctx.redis.smembers(k.base + 'ckkeys'),
    ctx.redis.smembers(k.base + 'gkeys'),
  ]);
  const keys = [
    ...ck.sort().map((key) => k.base + 'ckwait:' + key),
    ...gates.sort().map((g) => k.base + 'gwait:' + g),
  ];
  if (keys.length === 0) return { keys, sizes: [] };
  const pipe = ctx.redis.pipeline();
  for (const key of keys) pipe.zcard(key);
  const sizes = ((await pipe.exec()) ?? []).map(([err, n]) => {
    if (err) throw err;
    return Number(n);
  });
  return { keys, sizes };
}

/** Ids of the queue's key lines laid end to end (keys in order, each line in its order). */
async function keyLineIds(
  ctx: RedisContext,
  queue: string,
  offset: number,
  count: number,
): Promise<string[]> {
  const { keys, sizes } = await keyLines(ctx, queue);
  const slices = sliceLines(sizes, offset, count);
  if (slices.length === 0) return [];
  const pipe = ctx.redis.pipeline();
  for (const [i, start, stop] of slices) pipe.zrange(keys[i]!, String(start), String(stop));
  return ((await pipe.exec()) ?? []).flatMap(([err, ids]) => {
    if (err) throw err;
    return ids as string[];
  });
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

export function list(
  ctx: RedisContext,
  query: ListQuery,
): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
  return listPages(pagesOf(ctx, query.queue), query);
}

/**
 * How many entries each of the queue's indexes holds (one pipelined ZCARD each; `queued` with
 * the ready list's live entries, readyLine.ts).
 */
export async function counts(ctx: RedisContext, queue: string): Promise<QueueCounts> {
  const k = ctx.keys(queue);
  const pipe = ctx.redis.pipeline();
  for (const name of COUNTED) pipe.zcard(k[name]);
  queueQueuedSize(pipe, k);
  const res = (await pipe.exec()) ?? [];
  const value = (i: number): unknown => {
    const [err, n] = res[i] ?? [null, 0];
    if (err) throw err;
    return n;
  };
  const out = {} as QueueCounts;
  COUNTED.forEach((name, i) => {
    out[name] = Number(value(i));
  });
  const m = COUNTED.length;
  out.queued = queuedSize(value(m), value(m + 1), value(m + 2));
  // Jobs set aside in their key's line are queued, though in no index.
  const { sizes } = await keyLines(ctx, queue);
  for (const n of sizes) out.queued += n;
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
  for (const index of [k.active, k.queued, k.delayed, k.waiting, 'keyLines']) {
    for (let offset = 0; ; offset += COUNT_PAGE) {
      // The key lines too: their jobs are queued, in no index.
      const ids =
        index === 'keyLines'
          ? await keyLineIds(ctx, queue, offset, COUNT_PAGE)
          : index === k.queued
            ? await queuedIds(ctx, k, offset, COUNT_PAGE)
            : await ctx.redis.zrange(index, String(offset), String(offset + COUNT_PAGE - 1));
      const fresh = ids.filter((id) => id !== '' && !seen.has(id));
      for (const id of fresh) seen.add(id);
      if (fresh.length > 0) {
        const pipe = ctx.redis.pipeline();
        for (const id of fresh) pipe.hmget(k.job(id), F.machine, F.version);
        for (const [err, values] of (await pipe.exec()) ?? []) {
          if (err) throw err;
          const [m, v] = values as (string | null)[];
          if (m === machine && storedVersion(v) === version) n++;
        }
      }
      if (ids.length < COUNT_PAGE) break;
    }
  }
  return n;
}

export { COUNTED, type QueueCounts };
