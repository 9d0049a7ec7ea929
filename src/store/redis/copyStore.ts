// `machinist migrate-store --to-cluster` / `--to`: copies one deployment (every key under its
// prefix) from the Redis it runs on to another, typically a single node to a Redis Cluster. The
// keys need no renaming: every queue's keys already share the queue's hash tag (keys.ts), so on
// a cluster each queue lands whole in one slot, and the few keys shared by all queues (format,
// queue list, registry) are each touched alone.
//
// The rules it holds, each checked where it is enforced below:
// - NOTHING IS COPIED ONTO DATA: the target must hold no key under the prefix (else
//   STORE_COPY_TARGET_NOT_EMPTY), so two deployments are never merged by accident.
// - NO JOB IS MID-RUN: the source's format is the code's (run migrate-store first) and no queue
//   has an active job (STORE_COPY_BUSY, naming the queues): a worker still writing the source
//   would lose what it writes.
// - A CUT-SHORT COPY IS NEVER TAKEN FOR A STORE: the format stamp is copied last, so a target
//   without it is refused by every store (STORE_FORMAT_OLDER) and by a second copy (not empty).
// - WHAT CHANGED DURING THE COPY IS TOLD: the source is counted again after the copy; a key
//   that appeared meanwhile (a producer left running) fails the step with STORE_COPY_CHANGED.

import type { Cluster, Redis } from 'ioredis';
import { CODE } from '../../errorCodes.js';
import { MachinistError } from '../../errors.js';
import { formatKey, queueKeys, queuesKey } from '../keys.js';
import { assertFormat } from '../storeFormat.js';

/** A connection to one node or to a cluster. */
export type AnyRedis = Redis | Cluster;

export interface CopyReport {
  /** Keys found under the prefix on the source (and, unless a dry run, written to the target). */
  keys: number;
  /** Each queue and how many job records it holds. */
  queues: { queue: string; jobs: number }[];
  dryRun: boolean;
}

const BATCH = 500;

/** The nodes to SCAN: a cluster's masters, or the one node. */
function scanNodes(redis: AnyRedis): Redis[] {
  return isCluster(redis) ? redis.nodes('master') : [redis];
}

function isCluster(redis: AnyRedis): redis is Cluster {
  return (redis as Cluster).isCluster === true;
}

/** Every key under `prefix` (SCAN on each master; never KEYS), batch by batch. */
export async function* scanPrefix(redis: AnyRedis, prefix: string): AsyncGenerator<string[]> {
  const match = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}:*`;
  for (const node of scanNodes(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', BATCH);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

async function countPrefix(redis: AnyRedis, prefix: string): Promise<number> {
  let n = 0;
  for await (const keys of scanPrefix(redis, prefix)) n += keys.length;
  return n;
}

/** The source's queues and their job counts; refuses a source with a job mid-run. */
async function quietQueues(source: AnyRedis, prefix: string): Promise<CopyReport['queues']> {
  const queues = (await source.smembers(queuesKey(prefix))).sort();
  const out: CopyReport['queues'] = [];
  const busy: string[] = [];
  for (const queue of queues) {
    const k = queueKeys(prefix, queue);
    const active = await source.zcard(k.active);
    if (active > 0) busy.push(`${queue} (${active} active)`);
    let jobs = 0;
    for await (const keys of scanPrefix(source, `${k.base}job`)) jobs += keys.length;
    out.push({ queue, jobs });
  }
  if (busy.length > 0)
    throw new MachinistError(
      CODE.STORE_COPY_BUSY,
      `jobs are running on ${busy.join(', ')}: stop every worker (and producer) of prefix '${prefix}' ` +
        'before copying; nothing was copied',
      { queue: busy.length === 1 ? queues.find((q) => busy[0]!.startsWith(`${q} `)) : undefined },
    );
  return out;
}

/** The source is of the code's format (else: migrate-store's numbered steps first, then the copy). */
async function assertSourceFormat(source: AnyRedis, prefix: string): Promise<void> {
  const stamp = await source.get(formatKey(prefix));
  const stored = stamp === null ? 0 : Number(stamp);
  if (!Number.isInteger(stored) || stored < 0)
    throw new MachinistError(
      CODE.BAD_STORE_FORMAT,
      `${formatKey(prefix)} holds '${stamp}', not a format version`,
    );
  assertFormat(stored, `the source, prefix '${prefix}'`);
}

/** Copies `keys` (DUMP + PTTL on the source, RESTORE with the same TTL on the target). */
async function copyKeys(source: AnyRedis, target: AnyRedis, keys: readonly string[]): Promise<number> {
  // Commands issued together are written to each node's socket at once (pipelined by ioredis);
  // on a cluster each goes to its own slot's node.
  const dumped = await Promise.all(
    keys.map(async (key) => [key, await source.dumpBuffer(key), await source.pttl(key)] as const),
  );
  let copied = 0;
  await Promise.all(
    dumped.map(async ([key, payload, pttl]) => {
      // Gone between SCAN and DUMP (a retention TTL ran out): nothing to copy.
      if (payload === null || pttl === -2) return;
      await target.restore(key, pttl > 0 ? pttl : 0, payload);
      copied++;
    }),
  );
  return copied;
}

export interface CopyOptions {
  /** Check and count; write nothing. */
  dryRun: boolean;
  /**
   * The source's format is being brought up to date in this run (a dry run of migrate-store's
   * steps wrote nothing yet): its stamp is not checked.
   */
  formatPending?: boolean;
}

/**
 * Copies deployment `prefix` from `source` to `target`. Refuses (before any write) a target that
 * holds the prefix, a source of another format or with a job mid-run.
 */
export async function copyStore(
  source: AnyRedis,
  target: AnyRedis,
  prefix: string,
  options: CopyOptions,
): Promise<CopyReport> {
  const { dryRun } = options;
  if (!options.formatPending) await assertSourceFormat(source, prefix);
  const queues = await quietQueues(source, prefix);
  const already = await countPrefix(target, prefix);
  if (already > 0)
    throw new MachinistError(
      CODE.STORE_COPY_TARGET_NOT_EMPTY,
      `the target already holds ${already} key(s) under prefix '${prefix}': copy onto an empty deployment ` +
        '(another prefix, or delete them); nothing was copied',
    );
  if (dryRun) return { keys: await countPrefix(source, prefix), queues, dryRun };

  let copied = 0;
  for await (const keys of scanPrefix(source, prefix))
    copied += await copyKeys(
      source,
      target,
      keys.filter((k) => k !== formatKey(prefix)),
    );
  // Last: the stamp that makes the target a store.
  copied += await copyKeys(source, target, [formatKey(prefix)]);
  const now = await countPrefix(source, prefix);
  if (now > copied)
    throw new MachinistError(
      CODE.STORE_COPY_CHANGED,
      `the source gained ${now - copied} key(s) under prefix '${prefix}' while it was copied (a producer or ` +
        'worker still running): stop them, empty the target and copy again',
    );
  return { keys: copied, queues, dryRun };
}
