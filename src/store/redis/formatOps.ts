// The data format's version on Redis (`<prefix>:format`, see storeFormat.ts): the check a store
// makes once before its first write or a supervisor's start (one GET; two commands only on a
// store with no version), and `machinist migrate-store`'s numbered steps.

import { CODE } from '../../errorCodes.js';
import type { Redis } from 'ioredis';
import { mastersOf, type RedisClient } from './redisClient.js';
import { MachinistError, StoreFormatError } from '../../errors.js';
import { fleetKeys, formatKey, queuesKey, registryKey } from '../keys.js';
import { fleetView, type Seen } from '../fleetView.js';
import type { WorkerFacts } from '../roles/Fleet.js';
import { serverTime } from './serverOps.js';
import { isJobField } from '../recordSchema.js';
import { STORE_FORMAT, assertFormat, migrationsFrom, type MigrationInfo } from '../storeFormat.js';

export interface FormatState {
  /** The stored version; null when there is none. */
  stored: number | null;
  /** Whether the deployment holds anything (a queue or a machine registered). */
  populated: boolean;
}

export async function readFormat(redis: RedisClient, prefix: string): Promise<FormatState> {
  const stamped = await readStamp(redis, prefix);
  if (stamped) return stamped;
  // Every deployment that ran lists its queues (enqueue) or its machines (a supervisor). One
  // EXISTS each: the two global keys are in different slots of a cluster.
  const populated =
    (await redis.exists(queuesKey(prefix))) > 0 || (await redis.exists(registryKey(prefix))) > 0;
  // THE STAMP COMES FIRST: a starter stamps a fresh store before its first write, so a store
  // found populated may have been stamped since the GET above by a starter racing this one (on
  // a cluster the stamp and the queue set are on different nodes, so nothing orders the two
  // reads otherwise): look again before calling it a store of format 0.
  if (populated) return (await readStamp(redis, prefix)) ?? { stored: null, populated };
  return { stored: null, populated };
}

/** The stamp's version, or null when there is none. */
async function readStamp(redis: RedisClient, prefix: string): Promise<FormatState | null> {
  const text = await redis.get(formatKey(prefix));
  if (text === null) return null;
  const stored = Number(text);
  if (!Number.isInteger(stored) || stored < 0)
    throw new MachinistError(
      CODE.BAD_STORE_FORMAT,
      `${formatKey(prefix)} holds '${text}', not a format version`,
    );
  return { stored, populated: true };
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
  2: compactSnapshots,
  3: readyList,
  4: defaultsLeftOut,
};

/** 0 -> 1: the pre-versioned layout is today's; nothing changes but the stamp, once checked. */
async function checkTodaysLayout(redis: RedisClient, prefix: string): Promise<string> {
  return `checked ${await checkRecords(redis, prefix, 1)} job record(s): today's layout`;
}

/** Checks that every job record holds only fields format `to` knows; returns how many there are. */
async function checkRecords(redis: RedisClient, prefix: string, to: number): Promise<number> {
  const match = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}:{*}:job:*`;
  let records = 0;
  // SCAN walks one node's keys: on a cluster, each master's (never KEYS, which blocks a server
  // and is disabled on managed ones).
  for (const node of await mastersOf(redis)) records += await checkRecordsOn(node, match, to);
  return records;
}

/** Checks the job records on one node matching `match`; returns how many there were. */
async function checkRecordsOn(redis: Redis, match: string, to: number): Promise<number> {
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
          `${keys[i]} holds field(s) ${unknown.map((f) => `'${f}'`).join(', ')} that format ${to} does not know: ` +
            'this is not the layout migrate-store can stamp; nothing was changed',
        );
    });
    records += keys.length;
  } while (cursor !== '0');
  return records;
}

/**
 * 1 -> 2: a pipeline's `sn` is written compact from now on (store/storedMachine.ts). Nothing
 * stored changes: a record written in full is read as it is by this version, and the records of
 * format 1 hold only fields format 2 knows (checked, as step 1 checks them). What makes it
 * breaking is the writers: a worker of format 1 cannot restore a compact snapshot, so
 * migrateStore refuses it while a supervisor runs (assertNoneRunning).
 */
async function compactSnapshots(redis: RedisClient, prefix: string): Promise<string> {
  const records = await checkRecords(redis, prefix, 2);
  return `checked ${records} job record(s); pipelines' snapshots are written compact from now on (none rewritten)`;
}

/**
 * 2 -> 3: THE READY LIST (lua/include/lcReady.lua). A runnable job of the normal band without a
 * concurrency key that enters at a fresh place goes to the list `ready` beside the `queued` zset,
 * and the claim merges the two by score. Nothing stored moves: the jobs a format-2 store holds in
 * `queued` stay there (the claim of format 3 reads the zset as before, and takes them in their
 * places among the list's), and `ready` starts empty. What makes it breaking is the claim of
 * format 2, which never reads `ready`: its jobs would wait for ever, so migrateStore refuses it
 * while a supervisor runs (assertNoneRunning). The records are checked as step 1 checks them.
 */
async function readyList(redis: RedisClient, prefix: string): Promise<string> {
  const records = await checkRecords(redis, prefix, 3);
  return `checked ${records} job record(s); queued jobs stay where they are, new ones may enter the ready list`;
}

/**
 * 3 -> 4: THE DEFAULTS LEFT OUT (lua/include/lcCreate.lua): a new record has no `v` or `ma` when
 * it holds the default (recordSchema.ts BASE_DEFAULTS). Nothing stored changes: a record of format
 * 3 holds both, which format 4 reads as before (THE BARE RECORD's count takes them as read). What
 * makes it breaking is the readers of format 3, which take an absent `v` for version 0 and an
 * absent `ma` for 1 attempt (a worker of format 3 would run such a job once, never retrying it),
 * so migrateStore refuses it while a supervisor runs (assertNoneRunning). The records are checked
 * as step 1 checks them.
 */
async function defaultsLeftOut(redis: RedisClient, prefix: string): Promise<string> {
  const records = await checkRecords(redis, prefix, 4);
  return `checked ${records} job record(s); kept as they are, new ones leave out a default version and max attempts`;
}

/**
 * Refuses (STORE_MIGRATE_BUSY, nothing written) while the fleet (the supervisors' announces,
 * fleetOps.ts) shows a supervisor live on the store: a breaking step needs every worker of the
 * older version stopped, and one that runs on never looks at the format again. A supervisor that
 * stopped cleanly says so; one that died is `gone` once its goneAfterMs passes with no announce.
 */
async function assertNoneRunning(redis: RedisClient, prefix: string, to: number): Promise<void> {
  const k = fleetKeys(prefix);
  const [facts, scores] = await Promise.all([
    redis.hgetall(k.facts),
    redis.zrange(k.seen, '0', '-1', 'WITHSCORES'),
  ]);
  const seen: Seen[] = [];
  for (let i = 0; i < scores.length; i += 2) {
    const text = facts[scores[i]!];
    if (text) seen.push({ facts: JSON.parse(text) as WorkerFacts, seenAt: Number(scores[i + 1]) });
  }
  const live = fleetView(seen, [], await serverTime(redis)).filter((w) => w.status === 'live');
  if (live.length === 0) return;
  const named = live
    .slice(0, 5)
    .map((w) => `${w.workerId} (${w.host}, pid ${w.pid}, ${w.version})`)
    .join(', ');
  throw new MachinistError(
    CODE.STORE_MIGRATE_BUSY,
    `migration to format ${to} is breaking and ${live.length} supervisor(s) run on prefix '${prefix}': ` +
      `${named}${live.length > 5 ? ', ...' : ''}. Stop every worker first (\`machinist workers\` lists them; ` +
      'one that died counts as gone once its heartbeat is older than its goneAfterMs); nothing was changed',
  );
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
  const steps = migrationsFrom(from);
  const breaking = steps.find((m) => m.breaking);
  // Before any step writes: a run refused here has changed nothing (a dry run is refused alike).
  if (breaking) await assertNoneRunning(redis, prefix, breaking.to);
  for (const m of steps) {
    const note = await REDIS_STEPS[m.to]!(redis, prefix, dryRun);
    if (!dryRun) await redis.set(formatKey(prefix), m.to);
    report.steps.push({ ...m, note });
  }
  return report;
}
