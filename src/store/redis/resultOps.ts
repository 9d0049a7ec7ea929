// Waiting for results on Redis: a watcher marks the jobs it waits for (lua/watch-1.lua), and the
// script that ends such a job pushes its final record to the watcher's list (pushResult in
// lua/include/pushResult.lua), where one blocking pop collects it. A waiter wakes only for jobs it
// waits for, and the wake-up carries the record: no event stream to filter, no read after it.

import type { RedisClient } from './redisClient.js';
import type { JobRecord } from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { decodeJob } from '../decodeJob.js';

/** Records taken per pop: a commit may finish many watched jobs at once. */
const POP_COUNT = 1000;

export async function watchJob(
  ctx: RedisContext,
  queue: string,
  id: string,
  watcherId: string,
): Promise<JobRecord | null> {
  const values = (await ctx.run('watch', [ctx.keys(queue).job(id)], [watcherId, ''])) as (string | null)[];
  return decodeJob(id, queue, values);
}

/** Takes a watcher that gave up off the job (lua/watch-1.lua with 'off'). */
export async function unwatchJob(
  ctx: RedisContext,
  queue: string,
  id: string,
  watcherId: string,
): Promise<void> {
  await ctx.run('watch', [ctx.keys(queue).job(id)], [watcherId, 'off']);
}

/** What pushResult writes: cjson of [id, JOB_FIELDS values], a missing field as false. */
function decodePushed(queue: string, text: string): JobRecord | null {
  const [id, values] = JSON.parse(text) as [string, (string | false)[]];
  return decodeJob(
    id,
    queue,
    values.map((v) => (v === false ? null : v)),
  );
}

/**
 * Blocks on `conn` (a connection of its own: the pop holds it) up to `blockMs` for the watcher's
 * first result, and takes every result waiting. BLMPOP (Redis 7) takes them in one reply; on an
 * older server, BLPOP takes one per call.
 */
export async function readResults(
  ctx: RedisContext,
  conn: RedisClient & { blmpopMissing?: boolean },
  queue: string,
  watcherId: string,
  blockMs: number,
): Promise<JobRecord[]> {
  const key = ctx.keys(queue).result(watcherId);
  const secs = Math.max(0.01, blockMs / 1000);
  let texts: string[] = [];
  if (!conn.blmpopMissing) {
    try {
      const res = (await conn.call('BLMPOP', secs, 1, key, 'LEFT', 'COUNT', POP_COUNT)) as
        [string, string[]] | null;
      texts = res ? res[1] : [];
    } catch (err) {
      if (!/unknown command/i.test(String((err as Error).message))) throw err;
      conn.blmpopMissing = true;
    }
  }
  if (conn.blmpopMissing) {
    const res = await conn.blpop(key, secs);
    texts = res ? [res[1]] : [];
  }
  const out: JobRecord[] = [];
  for (const t of texts) {
    const job = decodePushed(queue, t);
    if (job) out.push(job);
  }
  return out;
}
