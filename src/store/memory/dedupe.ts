// DEDUPE on MemoryStore: the twin of lua/include/dedupe.lua (read it first: the modes, the record
// and its release are explained there). Runs inside enqueueJobs' one synchronous step.

import type { Dedupe } from '../types.js';
import { FINAL } from '../lifecycleTable.js';
import type { MemoryContext } from './MemoryContext.js';
import type { DedupeRecord, QueueState } from './QueueState.js';
import { appendLog } from './MemoryJob.js';

/** A NewJob's dedupe as the step reads it (an idempotency key: the `ttl` mode in its own map). */
export interface DedupeCall {
  records: Map<string, DedupeRecord>;
  key: string;
  mode: Dedupe['mode'];
  ttl: number;
  maxDelay?: number;
  keepLast: boolean;
  /** How long a record not of the `ttl` mode lives at most; undefined for `ttl`. */
  recTtl?: number;
}

type Phase = 'missing' | 'ended' | 'unstarted' | 'started';

function phase(ctx: MemoryContext, q: QueueState, id: string): Phase {
  const j = ctx.job(q, id);
  if (!j) return 'missing';
  if (FINAL.has(j.status)) return 'ended';
  return j.status === 'queued' && j.claimedAt === undefined ? 'unstarted' : 'started';
}

function keep(
  ctx: MemoryContext,
  q: QueueState,
  keptId: string,
  d: DedupeCall,
  newId: string,
  input?: string,
  runAt?: number,
): void {
  const j = ctx.job(q, keptId);
  if (!j) return;
  const entry =
    `{"type":"deduplicated","key":${JSON.stringify(d.key)},"mode":"${d.mode}","discarded":"${newId}"` +
    `${input !== undefined ? ',"replaced":true' : ''}}`;
  if (runAt !== undefined) {
    ctx.lc.leave(q, j);
    ctx.lc.move(q, j, 'queued', { kind: 'deduplicated', log: [entry], runAt, set: { input } });
    return;
  }
  if (input !== undefined) j.input = input;
  appendLog(j, ctx.now, [entry]);
  ctx.emit(q, keptId, 'deduplicated', j.status);
}

/** The kept job's id, or the delay the new job `id` gets, having claimed the record for it. */
export function dedupeEnqueue(
  ctx: MemoryContext,
  q: QueueState,
  d: DedupeCall,
  id: string,
  input: string,
  delay: number,
): { kept: string } | { delay: number } {
  const { now } = ctx;
  const rec = d.records.get(d.key);
  if (rec && rec.expiresAt > now) {
    const cur = rec.id;
    if (d.mode === 'ttl') return (keep(ctx, q, cur, d, id), { kept: cur });
    const p = phase(ctx, q, cur);
    if (p === 'unstarted') {
      if (d.mode === 'debounce') {
        let runAt = now + d.ttl;
        if (d.maxDelay !== undefined)
          runAt = Math.min(runAt, (ctx.job(q, cur)?.createdAt ?? now) + d.maxDelay);
        keep(ctx, q, cur, d, id, input, runAt);
        rec.expiresAt = now + d.recTtl!;
      } else keep(ctx, q, cur, d, id, d.keepLast ? input : undefined);
      return { kept: cur };
    }
    if (p === 'started' && (d.keepLast || d.mode !== 'debounce')) {
      if (!d.keepLast) return (keep(ctx, q, cur, d, id), { kept: cur });
      if (rec.next !== undefined && phase(ctx, q, rec.next) === 'unstarted') {
        keep(ctx, q, rec.next, d, id, input);
        return { kept: rec.next };
      }
      rec.next = id;
      return { delay: rec.expiresAt - now };
    }
  }
  d.records.set(d.key, { id, expiresAt: now + (d.mode === 'ttl' ? d.ttl : d.recTtl!) });
  if (d.mode === 'debounce') return { delay: d.maxDelay !== undefined ? Math.min(d.ttl, d.maxDelay) : d.ttl };
  return { delay };
}
