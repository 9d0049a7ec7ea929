// Fan-out bookkeeping on MemoryStore, as lua/fanOpen-2.lua and the outbox relay (fanOutOps.ts,
// lua/fanIn-2.lua) on Redis: a parent's fan-out records, and the delivery of finished children
// to parents on other queues.

import { LeaseLostError } from '../../errors.js';
import type { FanState, RelayResult } from '../types.js';
import { decodeOutboxEntry, fanInOutcome, type OutboxEntry } from '../outboxEntry.js';
import type { MemoryContext } from './MemoryContext.js';
import { QueueState } from './QueueState.js';

/** Opens a parent's fan-out record once (noting the group on the parent), and returns what it holds. */
export function fanOpen(
  ctx: MemoryContext,
  q: QueueState,
  parentId: string,
  group: string,
  total: number,
  policy: 'failFast' | 'collect',
  token?: string,
): FanState {
  const parent = ctx.job(q, parentId);
  // THE FENCE: a worker whose lease passed opens nothing.
  if (token && (!parent || parent.token !== token)) throw new LeaseLostError(parentId);
  let fan = ctx.lc.fans.liveFan(q, parentId, group);
  // Nothing is made for a parent that does not exist.
  if (!fan && !parent) return { total, policy, finished: 0, failed: 0, results: new Map(), revive: false };
  if (!fan) {
    fan = { total, policy, finished: 0, failed: 0, woken: false, revive: false, results: new Map() };
    q.fans.set(QueueState.fanKey(parentId, group), fan);
    (parent!.fanGroups ??= []).push({ group, total });
  }
  return {
    total: fan.total,
    policy: fan.policy,
    finished: fan.finished,
    failed: fan.failed,
    results: new Map(fan.results),
    revive: fan.revive,
  };
}

/** Entries one relay call takes (as on Redis). */
const RELAY_BATCH = 100;

/**
 * Delivers finished children whose parent is on another queue, a batch per call, each from its
 * outbox entry (which carries the outcome: the child's record may be gone).
 */
export function relayOutbox(ctx: MemoryContext, q: QueueState): RelayResult {
  const out: RelayResult = { relayed: 0, dropped: [], more: false };
  const batch = q.index.outbox.range(0, RELAY_BATCH);
  out.more = batch.length === RELAY_BATCH;
  for (const { member } of batch) {
    q.index.outbox.delete(member);
    const e = outboxEntryOf(ctx, q, member);
    if ('why' in e) {
      out.dropped.push({ entry: member, why: e.why });
      continue;
    }
    let pq: QueueState;
    try {
      pq = ctx.queue(e.parentQueue);
    } catch {
      out.dropped.push({ entry: member, why: `parent queue '${e.parentQueue}' cannot be a queue` });
      continue;
    }
    ctx.lc.fans.fanIn(pq, e.parentId, e.group, Number(e.index), e.status, e.outcome);
    out.relayed++;
  }
  return out;
}

/** The entry a member holds; for an older version's bare id, built from the record if it is still there. */
function outboxEntryOf(ctx: MemoryContext, q: QueueState, member: string): OutboxEntry | { why: string } {
  const e = decodeOutboxEntry(member);
  if (!e) return { why: 'malformed outbox entry' };
  if (!('legacyId' in e)) return e;
  const c = ctx.job(q, e.legacyId);
  if (!c?.parentId || !c.parentQueue || !c.group) return { why: 'the child record is gone' };
  return {
    childId: c.id,
    parentId: c.parentId,
    parentQueue: c.parentQueue,
    group: c.group,
    index: String(c.index ?? 0),
    status: c.status,
    outcome: fanInOutcome(c.status, c.output, c.error),
  };
}
