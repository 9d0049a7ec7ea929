// One worker round trip (lua/commit-12.lua): its fenced writes (its ops as flat values by name, encodeOps),
// then a claim of new work; and the reply, decoded into ClaimedJobs.

import type { QueueKeys } from '../keys.js';
import type { ClaimRequest, ClaimedJob, CommitOp, CommitResult, JobStatus } from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { encodeOps } from './encodeOps.js';

/** A numeric field of a claim reply: `fallback` when absent (''), else its value (NaN if not a number). */
const num = (v: unknown, fallback: number): number =>
  v === '' || v === undefined || v === null ? fallback : Number(v);

/** commit-12.lua's KEYS, in its order. */
export function commitKeys(k: QueueKeys): string[] {
  return [
    k.queued,
    k.delayed,
    k.active,
    k.meta,
    k.events,
    k.marker,
    k.waiting,
    k.done,
    k.failed,
    k.cancelled,
    k.dead,
    k.broken,
  ];
}

export async function commitRoundTrip(
  ctx: RedisContext,
  queue: string,
  ops: CommitOp[],
  claim?: ClaimRequest,
): Promise<CommitResult> {
  const k = ctx.keys(queue);
  const args: (string | number)[] = [
    k.base,
    ctx.eventsMaxLen,
    ctx.finishedTtlMs,
    claim?.workerId ?? '',
    claim?.leaseMs ?? 0,
    claim?.max ?? 0,
    claim ? `|${claim.loadMachines.join('|')}|` : '',
  ];
  encodeOps(ops, args);
  const keys = commitKeys(k);
  // Durability 'replicated' (durability.ts): the commit is written whatever WAIT answers; a
  // shortfall is reported with the result (the pump logs it, the store counts it).
  let reply: unknown;
  let unreplicated: CommitResult['unreplicated'];
  if (ctx.replicaWait && ops.length > 0) {
    const r = await ctx.replicaWait.run(ctx, 'commit', 'commit', keys, args);
    reply = r.reply;
    const wanted = ctx.replicaWait.durability.replicas;
    if (r.acked < wanted) unreplicated = { acked: r.acked, wanted };
  } else reply = await ctx.run('commit', keys, args);
  const [written, claimedFlat, nextDue, now] = reply as [
    number | number[],
    (string | string[])[],
    string | null,
    number,
  ];
  const claimed: ClaimedJob[] = [];
  const f = claimedFlat;
  // THE COMPACT REPLY (lua/commit-12.lua): 3 values a job (all text), then a nested array only
  // for a job that does not have the machine, version, max attempts and status of the last one
  // that carried them, or that has a rare field.
  let last: string[] = [];
  for (let i = 0; i < f.length; i += 3) {
    const x = f[i + 3];
    const own = Array.isArray(x) ? x : undefined;
    if (own) last = own;
    // The rare fields are the job's own only.
    const rare = own && own.length > 4 ? own.slice(4) : undefined;
    claimed.push({
      id: f[i] as string,
      token: f[i + 1] as string,
      machine: last[0] || undefined,
      // Absent fields take their defaults; a present one is passed on as read, so that a record
      // with a bad value (written by something other than enqueue) is refused by runClaimedJob
      // rather than run with a made-up value.
      version: num(last[1], 1),
      input: (f[i + 2] as string) || undefined,
      snapshot: rare?.[0] || undefined,
      attempt: num(rare?.[1], 1),
      maxAttempts: num(last[2], 1),
      leaseRequeues: Number(rare?.[2]) || 0,
      parentId: rare?.[3] || undefined,
      options: rare?.[4] || undefined,
      status: last[3] as JobStatus,
      inbox: Number(rare?.[5]) || 0,
      parentQueue: rare?.[6] || undefined,
      hasInbox: rare?.[7] === '1',
      parentState: (rare?.[8] || undefined) as ClaimedJob['parentState'],
      retryLaters: Number(rare?.[9]) || 0,
    });
    if (own) i++;
  }
  return {
    // Every op written: their count (lua/commit-12.lua), else a value per op.
    written: typeof written === 'number' ? ops.map(() => true) : written.map((w) => w === 1),
    claimed,
    nextDueAt: nextDue ? Number(nextDue) : null,
    redisNow: Number(now),
    ...(unreplicated ? { unreplicated } : {}),
  };
}
