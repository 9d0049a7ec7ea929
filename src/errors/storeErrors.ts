// A store that cannot serve: Redis out of reach, a MemoryStore data file held or unwritable, a
// data format this code does not read, Lua scripts whose includes cannot be resolved.

import { CODE } from '../errorCodes.js';
import { type ErrorIds, MachinistError } from './MachinistError.js';

/**
 * Redis did not take a client call within its bound (`RedisStoreOptions.commandTimeoutMs`):
 * unreachable, or refusing it for a while (OOM, LOADING, ...). `address` names the server.
 * Nothing was written unless `maybeApplied`: the call's command had been sent when the
 * connection went or the bound passed, so Redis may apply it (an enqueue then creates the job
 * under `jobId`, which a retry with the same idempotencyKey finds).
 */
export class RedisUnavailableError extends MachinistError {
  readonly address: string;
  readonly maybeApplied: boolean;
  constructor(
    address: string,
    message: string,
    options: { ids?: ErrorIds; maybeApplied?: boolean; cause?: unknown } = {},
  ) {
    super(CODE.REDIS_UNAVAILABLE, message, options.ids, { cause: options.cause });
    this.address = address;
    this.maybeApplied = options.maybeApplied ?? false;
  }
}

/**
 * Durability 'replicated' (RedisStoreOptions.durability): Redis took an enqueue, but fewer
 * replicas than asked acknowledged it within the WAIT timeout. The jobs `jobIds` EXIST on the
 * master and will run, unless a failover comes before a replica has them. Enqueuing again with
 * the same ids or idempotency keys is safe (nothing is made twice) and waits for the replicas
 * again.
 */
export class ReplicationTimeoutError extends MachinistError {
  readonly jobIds: readonly string[];
  /** Replicas that acknowledged, and how many were asked for. */
  readonly acked: number;
  readonly wanted: number;
  constructor(queue: string, jobIds: readonly string[], acked: number, wanted: number, timeoutMs: number) {
    const shown = jobIds.length > 5 ? `${jobIds.slice(0, 5).join(', ')}, ...` : jobIds.join(', ');
    super(
      CODE.REPLICATION_TIMEOUT,
      `enqueue of ${jobIds.length} job(s) on queue '${queue}' (${shown}) was taken by the Redis master, but ` +
        `${acked} of ${wanted} replica(s) acknowledged it within ${timeoutMs} ms: the jobs exist and will run ` +
        `unless a failover loses them; enqueue again with the same idempotency keys to wait again`,
      { queue, jobId: jobIds.length === 1 ? jobIds[0] : undefined },
    );
    this.jobIds = jobIds;
    this.acked = acked;
    this.wanted = wanted;
  }
}

/**
 * A MemoryStore's data file is held by another live process (its lock file, `<file>.lock`, names
 * it): two stores writing one file would each overwrite the other's acknowledged jobs.
 */
export class DataFileLockedError extends MachinistError {
  readonly file: string;
  readonly pid: number;
  constructor(file: string, pid: number, message: string) {
    super(CODE.DATA_FILE_LOCKED, message);
    this.file = file;
    this.pid = pid;
  }
}

/**
 * A MemoryStore's data file could not be written (its directory gone, the disk full, no
 * permission): the store takes no more writes, which it could not keep, until a retry of the
 * write succeeds. Nothing was written by the call that got this.
 */
export class DataFileUnwritableError extends MachinistError {
  readonly file: string;
  constructor(file: string, cause: unknown) {
    super(
      CODE.DATA_FILE_UNWRITABLE,
      `MemoryStore: the data file ${file} cannot be written (${(cause as Error)?.message ?? String(cause)}); ` +
        'no write is taken until it can be',
      {},
      { cause },
    );
    this.file = file;
  }
}

/**
 * The store's data format (`<prefix>:format` in Redis, `format` in a MemoryStore data file) is
 * not the one this code reads (src/store/storeFormat.ts): STORE_FORMAT_NEWER when a newer
 * Machinist wrote it (run that version), STORE_FORMAT_OLDER when it predates this code (run
 * `machinist migrate-store`). Refused before anything is written.
 */
export class StoreFormatError extends MachinistError {
  /** The version found (0: a populated store from before versions were kept). */
  readonly stored: number;
  /** The version this code reads and writes. */
  readonly current: number;
  constructor(
    code: 'STORE_FORMAT_NEWER' | 'STORE_FORMAT_OLDER',
    stored: number,
    current: number,
    where: string,
  ) {
    super(
      code,
      code === 'STORE_FORMAT_NEWER'
        ? `${where} holds data format ${stored}, newer than the ${current} this Machinist reads: ` +
            'run the Machinist version that wrote it (or a newer one)'
        : `${where} holds data format ${stored}, older than the ${current} this Machinist reads: ` +
            'stop the workers and run `machinist migrate-store` (docs/data-format.md)',
    );
    this.stored = stored;
    this.current = current;
  }
}

/**
 * A Lua script whose `--- @include "name"` lines cannot be resolved (src/store/redis/luaIncludes.ts):
 * LUA_INCLUDE_MISSING when `include` has no file in lua/include/, LUA_INCLUDE_CYCLE when the
 * includes need each other round (`chain` lists the loop). Thrown when the scripts are loaded,
 * before anything reaches Redis.
 */
export class LuaIncludeError extends MachinistError {
  readonly script: string;
  readonly include: string;
  readonly chain: readonly string[];
  constructor(code: 'LUA_INCLUDE_MISSING' | 'LUA_INCLUDE_CYCLE', script: string, chain: readonly string[]) {
    const include = chain[chain.length - 1]!;
    super(
      code,
      code === 'LUA_INCLUDE_MISSING'
        ? `lua script ${script}: include "${include}" not found in lua/include/ (needed by ${chain.slice(0, -1).join(' -> ')})`
        : `lua script ${script}: includes form a cycle: ${chain.join(' -> ')}`,
    );
    this.script = script;
    this.include = include;
    this.chain = chain;
  }
}
