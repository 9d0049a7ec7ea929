// Global options (--redis, --prefix) and the store and client built from them. Redis is probed
// once up front so an unreachable server is one clear line, not a command hanging on retries.

import { Redis } from 'ioredis';
import { Client } from '../client/Client.js';
import type { AnyDefinition } from '../runtime/registry.js';
import { RedisStore } from '../store/redis/RedisStore.js';
import { CliError } from './CliError.js';

export interface GlobalOptions {
  redis: string;
  prefix: string;
  /**
   * Redis was asked for: --redis given on the command line (whatever its value, the default URL
   * included) or REDIS_URL set. Otherwise `redis` is only the default, which `dev` does not
   * assume is there.
   */
  redisChosen: boolean;
}

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** The URL with any password masked, for messages. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

async function probe(url: string): Promise<void> {
  let conn: Redis;
  try {
    conn = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 3000,
    });
  } catch (err) {
    throw new CliError(`invalid --redis URL '${url}': ${(err as Error).message}`);
  }
  // ioredis reports the socket's error (ECONNREFUSED, ENOTFOUND) as an event and rejects
  // connect() with a generic one; the event's is the one worth printing.
  let cause: Error | undefined;
  conn.on('error', (err: Error) => (cause ??= err));
  try {
    await conn.connect();
    await conn.ping();
  } catch (err) {
    const why = (cause ?? (err as Error)).message || 'connection failed';
    throw new CliError(`cannot reach Redis at ${safeUrl(url)}: ${why}`);
  } finally {
    conn.disconnect();
  }
}

/**
 * A store for the global options. `longLived` (the worker) keeps ioredis's retry-forever
 * behaviour so a Redis restart is ridden out; one-shot commands fail fast instead.
 */
export async function openStore(
  globals: GlobalOptions,
  longLived = false,
  options: { commandTimeoutMs?: number } = {},
): Promise<RedisStore> {
  await probe(globals.redis);
  try {
    return new RedisStore({
      url: globals.redis,
      prefix: globals.prefix,
      redis: longLived ? undefined : { maxRetriesPerRequest: 2 },
      commandTimeoutMs: options.commandTimeoutMs,
    });
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/**
 * Runs `fn` with a client, then closes both. Machine names are checked against the registry in
 * Redis, or against `jobs` when given (their input schemas too).
 */
export async function withClient<T>(
  globals: GlobalOptions,
  fn: (client: Client, store: RedisStore) => Promise<T>,
  options: { maxPayloadBytes?: number; jobs?: readonly AnyDefinition[] } = {},
): Promise<T> {
  const store = await openStore(globals);
  const client = new Client<never>({
    store,
    maxPayloadBytes: options.maxPayloadBytes,
    jobs: options.jobs as never,
  });
  try {
    return await fn(client, store);
  } finally {
    client.close();
    await store.close();
  }
}
