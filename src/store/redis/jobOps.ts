// One job by id on Redis: which queue holds it, its record, and the scripts a client runs on it
// (lua/cancel-8.lua, lua/send-5.lua).

import { JobNotFoundError, fromScriptError } from '../../errors.js';
import { queuesKey } from '../keys.js';
import type { CancelOutcome, JobRecord, JobStatus } from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { decodeJob, JOB_FIELDS } from '../decodeJob.js';
import { F } from '../recordSchema.js';

/**
 * The queue holding job `id` (`queue` when given), or null: one EXISTS per known queue, sent
 * together. Not one pipeline: each queue is a hash slot of its own, and a cluster client refuses a
 * pipeline whose keys are on different nodes.
 */
export async function resolveQueue(ctx: RedisContext, id: string, queue?: string): Promise<string | null> {
  if (queue) return queue;
  const queues = (await ctx.redis.smembers(queuesKey(ctx.prefix))).sort();
  const found = await Promise.all(queues.map((q) => ctx.redis.exists(ctx.keys(q).job(id))));
  const i = found.findIndex((n) => n === 1);
  return i >= 0 ? queues[i]! : null;
}

/** The queue holding job `id`, or JOB_NOT_FOUND. */
export async function queueOf(ctx: RedisContext, id: string, queue?: string): Promise<string> {
  const q = await resolveQueue(ctx, id, queue);
  if (!q) throw new JobNotFoundError(id, queue);
  return q;
}

export async function getJob(ctx: RedisContext, id: string, queue?: string): Promise<JobRecord | null> {
  const q = await resolveQueue(ctx, id, queue);
  if (!q) return null;
  const values = await ctx.redis.hmget(ctx.keys(q).job(id), ...JOB_FIELDS);
  return decodeJob(id, q, values);
}

export async function cancel(
  ctx: RedisContext,
  id: string,
  queue: string | undefined,
  reason: string,
): Promise<CancelOutcome> {
  const q = await queueOf(ctx, id, queue);
  const k = ctx.keys(q);
  try {
    const [result, status, kids] = (await ctx.run(
      'cancel',
      [k.queued, k.delayed, k.waiting, k.cancelled, k.events, k.active, k.meta, k.marker],
      [k.base, ctx.eventsMaxLen, ctx.finishedTtlMs, id, reason],
    )) as [CancelOutcome['result'], JobStatus, number];
    return { result, status, hasChildren: kids === 1, queue: q };
  } catch (err) {
    throw fromScriptError(err, { jobId: id, queue: q });
  }
}

export async function send(
  ctx: RedisContext,
  queue: string,
  id: string,
  event: string,
  eventType: string,
  eventId: string,
): Promise<boolean> {
  const k = ctx.keys(queue);
  try {
    const delivered = await ctx.run(
      'send',
      [k.queued, k.waiting, k.delayed, k.events, k.marker],
      [k.base, ctx.eventsMaxLen, id, event, eventType, eventId],
    );
    return delivered === 1;
  } catch (err) {
    throw fromScriptError(err, { jobId: id, queue });
  }
}

/** A job's status and cancel flag (a supervisor reads a child's parent before it runs the child). */
export async function jobStatus(
  ctx: RedisContext,
  id: string,
  queue: string,
): Promise<{ status: JobStatus; cancelRequested: boolean } | null> {
  const [st, cx] = await ctx.redis.hmget(ctx.keys(queue).job(id), F.status, F.cancelRequested);
  return st ? { status: st as JobStatus, cancelRequested: cx === '1' } : null;
}

/** The events sent to job `id` from index `from` on. */
export function readInbox(ctx: RedisContext, queue: string, id: string, from: number): Promise<string[]> {
  return ctx.redis.lrange(ctx.keys(queue).inbox(id), from, -1);
}
