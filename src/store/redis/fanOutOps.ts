// Fan-out bookkeeping on Redis: a parent's fan-out records (lua/fanOpen-2.lua), its children
// index, and the relay of finished children to parents on other queues (lua/fanIn-2.lua).

import type { QueueKeys } from '../keys.js';
import pLimit from 'p-limit';
import { fromScriptError } from '../../errors.js';
import type { FanState, RelayResult } from '../types.js';
import { decodeOutboxEntry, fanInOutcome, type OutboxEntry } from '../outboxEntry.js';
import type { RedisContext } from './RedisContext.js';
import { F } from '../recordSchema.js';

export async function fanOpen(
  ctx: RedisContext,
  queue: string,
  parentId: string,
  group: string,
  total: number,
  policy: 'failFast' | 'collect',
  token = '',
): Promise<FanState> {
  const k = ctx.keys(queue);
  let flat: string[];
  try {
    flat = (await ctx.run(
      'fanOpen',
      [k.fan(parentId, group), k.job(parentId)],
      [total, policy, group, token],
    )) as string[];
  } catch (err) {
    throw fromScriptError(err, { jobId: parentId, queue });
  }
  const state: FanState = { total, policy, finished: 0, failed: 0, results: new Map(), revive: false };
  for (let i = 0; i < flat.length; i += 2) {
    const f = flat[i]!;
    const v = flat[i + 1]!;
    if (f === 'n') state.total = Number(v);
    else if (f === 'p') state.policy = v as FanState['policy'];
    else if (f === 'd') state.finished = Number(v);
    else if (f === 'f') state.failed = Number(v);
    else if (f === 'rv') state.revive = true;
    else if (f[0] === 'r') state.results.set(Number(f.slice(1)), v);
  }
  return state;
}

export async function fanGroups(
  ctx: RedisContext,
  queue: string,
  parentId: string,
): Promise<{ group: string; total: number; finished: number }[]> {
  const k = ctx.keys(queue);
  const text = await ctx.redis.hget(k.job(parentId), F.fanGroups);
  if (!text) return [];
  const groups = text.split('\n').map((line) => {
    const [group = '', total = '0'] = line.split('\t');
    return { group, total: Number(total), finished: 0 };
  });
  const pipe = ctx.redis.pipeline();
  for (const g of groups) pipe.hget(k.fan(parentId, g.group), 'd');
  const res = (await pipe.exec()) ?? [];
  res.forEach(([, d], i) => (groups[i]!.finished = Number(d ?? 0)));
  return groups;
}

export async function childIds(
  ctx: RedisContext,
  queue: string,
  parentId: string,
  offset: number,
  limit: number,
): Promise<string[]> {
  return ctx.redis.zrange(ctx.keys(queue).children(parentId), String(offset), String(offset + limit - 1));
}

/** Entries one relay call takes, and how many of their deliveries are in flight at once. */
const RELAY_BATCH = 100;
const RELAY_CONCURRENCY = 16;

/**
 * Delivers a batch of the queue's outbox: each entry from what it carries (the child's outcome:
 * its record may be gone), by fanIn-2.lua in the parent queue's slot; then takes the entries
 * out. An entry that cannot be delivered is taken out too and reported in `dropped`.
 */
export async function relayOutbox(ctx: RedisContext, queue: string): Promise<RelayResult> {
  const k = ctx.keys(queue);
  const outbox = k.base + 'outbox';
  const members = await ctx.redis.zrange(outbox, '0', String(RELAY_BATCH - 1));
  const out: RelayResult = { relayed: 0, dropped: [], more: members.length === RELAY_BATCH };
  const limit = pLimit(RELAY_CONCURRENCY);
  const settled = await Promise.allSettled(
    members.map((member) =>
      limit(async () => {
        const e = await outboxEntryOf(ctx, k, member);
        if ('why' in e) return void out.dropped.push({ entry: member, why: e.why });
        let pk: QueueKeys;
        try {
          pk = ctx.keys(e.parentQueue);
        } catch {
          return void out.dropped.push({
            entry: member,
            why: `parent queue '${e.parentQueue}' cannot be a queue`,
          });
        }
        await ctx.run(
          'fanIn',
          [pk.fan(e.parentId, e.group), pk.job(e.parentId)],
          [pk.base, e.parentId, e.group, e.index, e.status, e.outcome, ctx.eventsMaxLen, ctx.finishedTtlMs],
        );
        out.relayed++;
      }),
    ),
  );
  // Only what was delivered (or cannot be) leaves the outbox; a failed delivery waits for the next relay.
  const done = members.filter((_, i) => settled[i]!.status === 'fulfilled');
  if (done.length > 0) await ctx.redis.zrem(outbox, ...done);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return out;
}

/** The entry a member holds; for an older version's bare id, built from the record if it is still there. */
async function outboxEntryOf(
  ctx: RedisContext,
  k: QueueKeys,
  member: string,
): Promise<OutboxEntry | { why: string }> {
  const e = decodeOutboxEntry(member);
  if (!e) return { why: 'malformed outbox entry' };
  if (!('legacyId' in e)) return e;
  const [par, pq, pg, pi, st, o, e2] = await ctx.redis.hmget(
    k.job(e.legacyId),
    F.parentId,
    F.parentQueue,
    F.group,
    F.index,
    F.status,
    F.output,
    F.error,
  );
  if (!par || !pq || !pg || !st) return { why: 'the child record is gone' };
  return {
    childId: e.legacyId,
    parentId: par,
    parentQueue: pq,
    group: pg,
    index: pi ?? '0',
    status: st,
    outcome: fanInOutcome(st, o ?? undefined, e2 ?? undefined),
  };
}
