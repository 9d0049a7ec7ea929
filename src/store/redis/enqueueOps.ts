// Adding jobs on Redis (lua/enqueue-5.lua): a batch for one queue in one atomic call, the rare
// fields packed so that most jobs cost the script no parsing.

import { ReplicationTimeoutError, fromScriptError } from '../../errors.js';
import { queuesKey } from '../keys.js';
import type { EnqueueResult, NewJob } from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { groupIds } from './idGroups.js';

export async function enqueue(
  ctx: RedisContext,
  queue: string,
  jobs: NewJob[],
  idemTtlMs: number,
  /** Queues this store has listed in `<prefix>:queues` already (one SADD per queue and process). */
  knownQueues: Set<string>,
): Promise<EnqueueResult[]> {
  const k = ctx.keys(queue);
  if (!knownQueues.has(queue)) {
    await ctx.redis.sadd(queuesKey(ctx.prefix), queue);
    knownQueues.add(queue);
  }
  await listHooked(
    ctx,
    queue,
    jobs.filter((j) => j.hooked).map((j) => j.id),
  );
  // THE SHARED FORM (enqueue-5.lua): a batch whose jobs share their machine, version, band,
  // delay and max attempts (most do) sends those once and 3 values a job (2 without extras), not 8.
  const j0 = jobs[0]!;
  const shared = jobs.every(
    (j) =>
      j.machine === j0.machine &&
      j.version === j0.version &&
      j.band === j0.band &&
      j.delayMs === j0.delayMs &&
      j.maxAttempts === j0.maxAttempts,
  );
  // The rarely used fields travel as one JSON object under NewJob's names, '' when none is set
  // (see enqueue-5.lua); a shared batch where no job has any sends none (w = 2), nor one whose
  // jobs are all minimal records and have no other ('m': w = 2, each a minimal record).
  let extras = jobs.map((j) => extrasOf(j, false));
  let w: 2 | 3 | 8 | 'm' | 'g';
  // THE IDS GROUPED (idGroups.ts): a batch of the shared form without extras, due now, sends its
  // ids grouped too ('g': w = 2 and the text last), for its stream entry (enqueue-5.lua's plain
  // batch; a batch that takes the general way there ignores it).
  let grouped: string | null = null;
  if (shared && jobs.every((j) => j.minimal) && extras.every((x) => x === '')) w = 'm';
  else {
    if (jobs.some((j) => j.minimal)) extras = jobs.map((j) => extrasOf(j, true));
    w = !shared ? 8 : extras.every((x) => x === '') ? 2 : 3;
    if (w === 2 && jobs.length > 1 && j0.delayMs === 0) grouped = groupIds(jobs.map((j) => j.id));
    if (grouped !== null) w = 'g';
  }
  const args: (string | number)[] = [k.base, ctx.eventsMaxLen, idemTtlMs, jobs.length, w];
  if (shared) args.push(j0.machine, j0.version, j0.band, j0.delayMs, j0.maxAttempts);
  jobs.forEach((j, i) => {
    if (w === 2 || w === 'm' || w === 'g') args.push(j.id, j.input);
    else if (w === 3) args.push(j.id, j.input, extras[i]!);
    else args.push(j.id, j.machine, j.version, j.input, j.band, j.delayMs, j.maxAttempts, extras[i]!);
  });
  if (grouped !== null) args.push(grouped);
  const keys = [k.queued, k.delayed, k.meta, k.events, k.marker];
  let res: number | (string | number)[];
  let acked = Infinity;
  try {
    if (ctx.replicaWait) {
      const r = await ctx.replicaWait.run(ctx, 'enqueue', 'enqueue', keys, args);
      res = r.reply as number | (string | number)[];
      acked = r.acked;
    } else res = (await ctx.run('enqueue', keys, args)) as number | (string | number)[];
  } catch (err) {
    // LEASE_LOST <parent id>: a child's parent no longer holds the lease its fan-out carried.
    throw fromScriptError(err, { queue });
  }
  const out: EnqueueResult[] = [];
  // A number: every job was created under its own id (with its watcher, if it has one).
  if (typeof res === 'number') for (const j of jobs) out.push(made(j));
  else
    for (let i = 0; i < res.length; i += 2) {
      // 1 created; else 0 (the id exists) or 2 (a key kept a job), plus 4 when the job's
      // watcher is on the kept record.
      const code = Number(res[i + 1]);
      if (code === 1) {
        out.push(made(jobs[i / 2]!));
        continue;
      }
      const r: EnqueueResult = { id: String(res[i]), created: false };
      if ((code & 2) !== 0) r.deduplicated = true;
      if ((code & 4) !== 0) r.watched = true;
      out.push(r);
    }
  // Durability 'replicated': acknowledged only once a replica has the jobs (durability.ts).
  const d = ctx.replicaWait?.durability;
  if (d && acked < d.replicas)
    throw new ReplicationTimeoutError(
      queue,
      out.map((r) => r.id),
      acked,
      d.replicas,
      d.timeoutMs,
    );
  return out;
}

/** A job created under its own id: watched when it came with a watcher (its `wt` from the start). */
function made(j: NewJob): EnqueueResult {
  return j.watcher ? { id: j.id, created: true, watched: true } : { id: j.id, created: true };
}

/**
 * Lists jobs with hooks for the webhook dispatcher, BEFORE they are made (or run again), so it
 * never sees one of their events without knowing of their hooks; a job listed already keeps its
 * time (ZADD NX). A listing whose job was never made (the script failed, an idempotency key
 * named another job, a redrive was refused) is dropped by the dispatcher's sweep.
 */
export async function listHooked(ctx: RedisContext, queue: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const now = Date.now();
  await ctx.redis.zadd(ctx.keys(queue).hooked, 'NX', ...ids.flatMap((id) => [now, id]));
}

/**
 * A job's rarely used fields as one JSON object under NewJob's names, '' when none is set;
 * `record` 'minimal' only when `withRecord`.
 */
function extrasOf(j: NewJob, withRecord: boolean): string {
  return j.idempotencyKey ||
    j.dedupe ||
    j.parentId ||
    j.options ||
    j.parentQueue ||
    j.group ||
    j.index !== undefined ||
    j.revive ||
    j.parentToken ||
    j.concurrencyKey ||
    j.watcher ||
    (withRecord && j.minimal)
    ? JSON.stringify({
        idempotencyKey: j.idempotencyKey || undefined,
        parentId: j.parentId || undefined,
        options: j.options || undefined,
        parentQueue: j.parentQueue || undefined,
        group: j.group || undefined,
        index: j.index,
        revive: j.revive || undefined,
        parentToken: j.parentToken || undefined,
        dedupeKey: j.dedupe?.key,
        dedupeMode: j.dedupe?.mode,
        dedupeTtlMs: j.dedupe?.ttlMs,
        dedupeMaxDelayMs: j.dedupe?.maxDelayMs,
        dedupeKeepLast: j.dedupe?.keepLast ? '1' : undefined,
        concurrencyKey: j.concurrencyKey || undefined,
        record: withRecord && j.minimal ? 'minimal' : undefined,
        watcher: j.watcher || undefined,
      })
    : '';
}
