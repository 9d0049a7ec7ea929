// One worker round trip (lua/commit-12.lua): its fenced writes (its ops as flat values by name, encodeOps),
// then a claim of new work; and the reply, decoded into ClaimedJobs.

import type { QueueKeys } from '../keys.js';
import type { ClaimRequest, ClaimedJob, CommitOp, CommitResult, JobStatus } from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { encodeOps } from './encodeOps.js';
import { BASE_DEFAULTS } from '../recordSchema.js';

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
    claim?.leadMs ?? 0,
    claim?.hold ?? 0,
    claim?.maxInputBytes ?? 0,
  ];
  encodeOps(ops, args);
  const keys = commitKeys(k);
  // Durability 'replicated' (durability.ts): the commit is written whatever WAIT answers; a
  // shortfall is reported with the result (the pump logs it, the store counts it).
  let reply: unknown;
  let unreplicated: CommitResult['unreplicated'];
  if (ctx.replicaWait && ops.length > 0) {
    const r = await ctx.replicaWait.run(ctx, 'commit', 'commit', keys, args, true);
    reply = r.reply;
    const wanted = ctx.replicaWait.durability.replicas;
    if (r.acked < wanted) unreplicated = { acked: r.acked, wanted };
  } else reply = await ctx.runBuffers('commit', keys, args);
  const [written, packed, nextDue, now, held] = reply as [
    number | number[],
    Buffer,
    Buffer | number | null,
    number,
    number,
  ];
  const claimed = decodeClaimed(packed);
  // THE EARLY LEASE: the reply's last `held` jobs were claimed before their timer was due.
  if (held > 0) markHeld(claimed, held, Number(now) + (claim?.leadMs ?? 0));
  return {
    // Every op written: their count (lua/commit-12.lua), else a value per op.
    written: typeof written === 'number' ? ops.map(() => true) : written.map((w) => w === 1),
    claimed,
    // A score as read (the reply's bulk strings come as Buffers), or a number the Lua made.
    nextDueAt: nextDue ? Number(typeof nextDue === 'number' ? nextDue : nextDue.toString()) : null,
    redisNow: Number(now),
    ...(unreplicated ? { unreplicated } : {}),
  };
}

/** THE EARLY LEASE: the last `held` jobs of a claim were claimed early, their timers due by `until`. */
export function markHeld(claimed: ClaimedJob[], held: number, until: number): void {
  for (let i = claimed.length - held; i < claimed.length; i++) claimed[i]!.holdUntil = until;
}

/**
 * The claimed jobs of commit-12.lua's PACKED REPLY (its header): per job its id, token and
 * input, then THE COMPACT REPLY's count of texts and the texts; each text is its length in bytes
 * (one byte below 128, else 7 bits a byte, lowest first, the high bit on all but the last) then
 * its bytes, decoded as UTF-8 by itself, as ioredis decodes a bulk string: the same strings as
 * a reply of one value per text gave, whatever bytes they hold.
 */
export function decodeClaimed(b: Buffer): ClaimedJob[] {
  const claimed: ClaimedJob[] = [];
  const end = b.length;
  let p = 0;
  const text = (): string => {
    let n = 0;
    let scale = 1;
    for (;;) {
      if (p >= end) throw new Error('commit reply: the claimed jobs are cut short');
      const byte = b[p++]!;
      if (byte < 128) {
        n += byte * scale;
        break;
      }
      n += (byte - 128) * scale;
      scale *= 128;
    }
    if (n === 0) return '';
    const from = p;
    p += n;
    if (p > end) throw new Error('commit reply: the claimed jobs are cut short');
    return b.toString('utf8', from, p);
  };
  let last: string[] = [];
  while (p < end) {
    const id = text();
    const token = text();
    const input = text();
    if (p >= end) throw new Error('commit reply: the claimed jobs are cut short');
    const count = b[p++]!;
    // The rare fields are the job's own only: own[4] on (read in place, not copied out).
    let rare: string[] | undefined;
    if (count > 0) {
      const own: string[] = [];
      for (let k = 0; k < count; k++) own.push(text());
      last = own;
      if (count > 4) rare = own;
    }
    claimed.push({
      id,
      token,
      machine: last[0] || undefined,
      // Absent fields take their defaults (the version and max attempts: THE DEFAULTS LEFT OUT,
      // recordSchema.ts); a present one is passed on as read, so that a record with a bad value
      // (written by something other than enqueue) is refused by runClaimedJob rather than run
      // with a made-up value.
      version: num(last[1], BASE_DEFAULTS.version),
      input: input || undefined,
      snapshot: rare?.[4] || undefined,
      attempt: num(rare?.[5], 1),
      maxAttempts: num(last[2], BASE_DEFAULTS.maxAttempts),
      leaseRequeues: Number(rare?.[6]) || 0,
      parentId: rare?.[7] || undefined,
      options: rare?.[8] || undefined,
      status: last[3] as JobStatus,
      inbox: Number(rare?.[9]) || 0,
      parentQueue: rare?.[10] || undefined,
      hasInbox: rare?.[11] === '1',
      parentState: (rare?.[12] || undefined) as ClaimedJob['parentState'],
      retryLaters: Number(rare?.[13]) || 0,
    });
    // WITHHELD INPUT (ClaimRequest.maxInputBytes): a 15th text, its size (set apart: most jobs'
    // objects keep the one shape).
    if (count === 15) claimed[claimed.length - 1]!.inputBytes = Number(rare![14]);
  }
  return claimed;
}
