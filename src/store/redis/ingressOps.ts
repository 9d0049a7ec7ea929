// The ingress list on Redis (docs/ingress.md): reading the oldest entries, and making them jobs
// in one atomic call (lua/drainIngress-7.lua) that first checks they are still the oldest.

import { createHash } from 'node:crypto';
import type { IngressDecision, IngressDrained } from '../types.js';
import type { RedisContext } from './RedisContext.js';

/** Most bytes of an undecodable entry's raw text kept with its reason (BrokenEntry.raw). */
export const BROKEN_RAW_CAP = 64 * 1024;
/** How many times a drain reads again after another supervisor took the entries it read. */
const MAX_TRIES = 5;

export async function drainIngress(
  ctx: RedisContext,
  queue: string,
  max: number,
  decide: (raw: Buffer) => IngressDecision | Promise<IngressDecision>,
  /** The store's idempotency TTL: the longest a dedupe record (but a `ttl` one) lives. */
  idemTtlMs: number,
): Promise<IngressDrained> {
  const k = ctx.keys(queue);
  for (let attempt = 1; ; attempt++) {
    // Buffers: the SHA-1 the script compares is over the entry's bytes, which a string decode
    // would change for an entry that is not UTF-8.
    const newestFirst = await ctx.redis.lrangeBuffer(k.ingress, -max, -1);
    if (newestFirst.length === 0) return { made: 0, broken: 0, existing: 0 };
    const entries = newestFirst.reverse();
    // Each entry as its decision, named (see drainIngress-7.lua), with the SHA-1 of its bytes.
    const records: unknown[] = [];
    for (const raw of entries) {
      const sha = createHash('sha1').update(raw).digest('hex');
      const decision = decide(raw);
      const d = decision instanceof Promise ? await decision : decision;
      if ('reason' in d) records.push({ sha, id: d.id, reason: d.reason });
      else {
        const j = d.job;
        const job = {
          id: j.id,
          machine: j.machine,
          version: j.version,
          input: j.input,
          band: j.band,
          delayMs: j.delayMs,
          maxAttempts: j.maxAttempts,
          options: j.options || undefined,
          dedupe: j.dedupe && { ...j.dedupe, recTtlMs: idemTtlMs },
          concurrencyKey: j.concurrencyKey || undefined,
        };
        // spareId: where the entry goes if its id names another machine's job (ID_CONFLICT).
        records.push(d.ownId ? { sha, job, ownId: true, spareId: d.spareId } : { sha, job });
      }
    }
    const args = [k.base, ctx.eventsMaxLen, JSON.stringify(records), BROKEN_RAW_CAP];
    const keys = [k.ingress, k.queued, k.delayed, k.meta, k.events, k.marker, k.broken];
    // Durability 'replicated': the entries are jobs already, whatever WAIT answers; a shortfall
    // is counted (RedisStore.replicaShortfalls), the drain goes on.
    const res = (
      ctx.replicaWait
        ? (await ctx.replicaWait.run(ctx, 'drainIngress', 'drainIngress', keys, args)).reply
        : await ctx.run('drainIngress', keys, args)
    ) as number[];
    if (res[0] !== -1) return { made: res[0]!, broken: res[1]!, existing: res[2]! };
    // Another supervisor drained these entries first (or this call was sent twice): read again.
    if (attempt >= MAX_TRIES) return { made: 0, broken: 0, existing: 0, contended: true };
  }
}
