// The data format's version on Redis (`<prefix>:format`, see storeFormat.ts): the check a store
// makes once before its first write or a supervisor's start (one GET; two commands only on a
// store with no version), and `machinist migrate-store`'s numbered steps.

import { CODE } from '../../errorCodes.js';
import type { Redis } from 'ioredis';
import { mastersOf, type RedisClient } from './redisClient.js';
import { MachinistError, StoreFormatError } from '../../errors.js';
import { formatKey, queuesKey, registryKey } from '../keys.js';
import { isJobField } from '../recordSchema.js';
import { STORE_FORMAT, assertFormat, migrationsFrom, type MigrationInfo } from '../storeFormat.js';

export interface FormatState {
  /** The stored version; null when there is none. */
  stored: number | null;
  /** Whether the deployment holds anything (a queue or a machine registered). */
  populated: boolean;
}

export async function readFormat(redis: RedisClient, prefix: string): Promise<FormatState> {
  const text = await redis.get(formatKey(prefix));
  if (text !== null) {
    const stored = Number(text);
    if (!Number.isInteger(stored) || stored < 0)
      throw new MachinistError(
        CODE.BAD_STORE_FORMAT,
        `${formatKey(prefix)} holds '${text}', not a format version`,
      );
    return { stored, populated: true };
  }
  // Every deployment that ran lists its queues (enqueue) or its machines (a supervisor). One
  // EXISTS each: the two global keys are in different slots of a cluster.
  const populated =
    (await redis.exists(queuesKey(prefix))) > 0 || (await redis.exists(registryKey(prefix))) > 0;
  return { stored: null, populated };
}

/**
 * Stamps a fresh deployment with STORE_FORMAT (SET NX: of two first starters one stamps), and
 * refuses any other store whose version is not the code's (StoreFormatError). `seenCurrent`: this
 * store found the current version here before, so a missing stamp is data Redis lost (a restart
 * without AOF, FLUSHALL; the registry refresh restores the rest), not a pre-versioned store.
 */
export async function ensureFormat(redis: RedisClient, prefix: string, seenCurrent = false): Promise<void> {
  let state = await readFormat(redis, prefix);
  if (state.stored === null && (!state.populated || seenCurrent)) {
    if ((await redis.set(formatKey(prefix), STORE_FORMAT, 'NX')) === 'OK') return;
    state = await readFormat(redis, prefix);
  }
  assertFormat(state.stored ?? 0, where(prefix));
}

/** Writes the stamp again when it is missing (see ensureFormat's `seenCurrent`). */
export async function restampFormat(redis: RedisClient, prefix: string): Promise<void> {
  await redis.set(formatKey(prefix), STORE_FORMAT, 'NX');
}

const where = (prefix: string): string => `the Redis store of prefix '${prefix}'`;

/** A step's work on Redis: checks (and, unless `dryRun`, changes) the data; returns what it did. */
type Step = (redis: RedisClient, prefix: string, dryRun: boolean) => Promise<string>;

/** The Redis side of each migration in storeFormat.ts MIGRATIONS, by the version it reaches. */
export const REDIS_STEPS: Readonly<Record<number, Step>> = {
  1: checkTodaysLayout,
};

/** 0 -> 1: the pre-versioned layout is today's; nothing changes but the stamp, once checked. */
async function checkTodaysLayout(redis: RedisClient, prefix: string): Promise<string> {
  const match = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}:{*}:job:*`;
  let records = 0;
  // SCAN walks one node's keys: on a cluster, each master's (never KEYS, which blocks a server
  // and is disabled on managed ones).
  for (const node of await mastersOf(redis)) records += await checkRecordsOn(node, match);
  return `checked ${records} job record(s): today's layout`;
}

/** Checks the job records on one node matching `match`; returns how many there were. */
async function checkRecordsOn(redis: Redis, match: string): Promise<number> {
  let cursor = '0';
  let records = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 500, 'TYPE', 'hash');
    cursor = next;
    const pipe = redis.pipeline();
    for (const k of keys) pipe.hkeys(k);
    const replies = keys.length > 0 ? ((await pipe.exec()) ?? []) : [];
    replies.forEach(([err, fields], i) => {
      if (err) throw err;
      const unknown = (fields as string[]).filter((f) => !isJobField(f));
      if (unknown.length > 0)
        throw new MachinistError(
          CODE.STORE_LAYOUT_UNKNOWN,
          `${keys[i]} holds field(s) ${unknown.map((f) => `'${f}'`).join(', ')} that format 1 does not know: ` +
            'this is not the layout migrate-store can stamp; nothing was changed',
        );
    });
    records += keys.length;
  } while (cursor !== '0');
  return records;
}

export interface MigrationStep extends MigrationInfo {
  /** What the step found or did. */
  note: string;
}

export interface MigrationReport {
  /** The version found (0: a populated store without one; null: an empty deployment). */
  from: number | null;
  to: number;
  steps: MigrationStep[];
  dryRun: boolean;
}

/**
 * Takes the store to STORE_FORMAT one numbered migration at a time, stamping each version as
 * its step ends (a run cut short resumes at the next step). `dryRun`: checks, writes nothing.
 */
export async function migrateStore(
  redis: RedisClient,
  prefix: string,
  dryRun: boolean,
): Promise<MigrationReport> {
  const state = await readFormat(redis, prefix);
  const report: MigrationReport = {
    from: state.stored ?? (state.populated ? 0 : null),
    to: STORE_FORMAT,
    steps: [],
    dryRun,
  };
  if (state.stored === null && !state.populated) {
    if (!dryRun) await redis.set(formatKey(prefix), STORE_FORMAT, 'NX');
    return report;
  }
  const from = state.stored ?? 0;
  if (from > STORE_FORMAT)
    throw new StoreFormatError('STORE_FORMAT_NEWER', from, STORE_FORMAT, where(prefix));
  for (const m of migrationsFrom(from)) {
    const note = await REDIS_STEPS[m.to]!(redis, prefix, dryRun);
    if (!dryRun) await redis.set(formatKey(prefix), m.to);
    report.steps.push({ ...m, note });
  }
  return report;
}
