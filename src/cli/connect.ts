// Global options (--redis, --prefix, --url, --token) and what the commands talk to: a store
// built from them (Redis, probed once up front so an unreachable server is one clear line, not a
// command hanging on retries), or with --url the HTTP API of a running server (`npm start`).
//
// Every command file imports this one, and main.ts loads every command file to list them: so the
// store, the Client, ioredis and the backends are imported INSIDE the functions that use them,
// never at the top. A static import here costs each CLI process, `--help` included, the whole
// store (about 0.5 s of CPU: the test suite spawns hundreds of them).

import type { Redis } from 'ioredis';
import type { AnyDefinition } from '../runtime/registry.js';
import type { RedisStore } from '../store/redis/RedisStore.js';
import type { CliBackend } from './backend/CliBackend.js';
import { CliError, EXIT } from './CliError.js';

export interface GlobalOptions {
  redis: string;
  /** --redis-cluster (REDIS_CLUSTER): a Redis Cluster's seed nodes, used instead of `redis`. */
  redisCluster?: ClusterSeed[];
  prefix: string;
  /** A running server's API (--url, MACHINIST_URL): the job commands go through it. */
  url?: string;
  /** Its bearer token (--token, MACHINIST_TOKEN). */
  token?: string;
  /** --url was on the command line (a command that runs on a store refuses it; the variable it ignores). */
  urlFlag?: boolean;
  /**
   * Redis was asked for: --redis given on the command line (whatever its value, the default URL
   * included) or REDIS_URL set. Otherwise `redis` is only the default, which `dev` does not
   * assume is there.
   */
  redisChosen: boolean;
}

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export interface ClusterSeed {
  host: string;
  port: number;
}

/** `host:port,host:port,...` as --redis-cluster (or `flag`) takes it; a CliError naming a bad entry. */
export function parseClusterNodes(text: string, flag = '--redis-cluster'): ClusterSeed[] {
  const nodes = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((entry) => {
      const m = /^(.+):(\d{1,5})$/.exec(entry);
      const port = m ? Number(m[2]) : NaN;
      if (!m || !(port > 0 && port < 65536))
        throw new CliError(`${flag} takes host:port,... (got '${entry}')`, EXIT.usage);
      return { host: m[1]!.replace(/^\[(.*)\]$/, '$1'), port };
    });
  if (nodes.length === 0) throw new CliError(`${flag} names no node (host:port,...)`, EXIT.usage);
  return nodes;
}

/** Where the store of the global options is, for messages: the URL (password masked) or the cluster's seeds. */
export function redisLabel(globals: Pick<GlobalOptions, 'redis' | 'redisCluster'>): string {
  if (globals.redisCluster)
    return `cluster ${globals.redisCluster.map((n) => `${n.host}:${n.port}`).join(',')}`;
  return safeUrl(globals.redis);
}

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

/** Connects to `url` once; `chosen`: the URL was asked for (else it is only the default). */
export async function probe(url: string, chosen: boolean): Promise<void> {
  const { Redis } = await import('ioredis');
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
    // Nothing was asked for: say what was tried, and how to reach what `npm start` runs.
    const hint = chosen
      ? ''
      : ' (the default: no --redis, REDIS_URL, --url or MACHINIST_URL given). A `machinist dev` ' +
        '(npm start) or `serve` is reached with --url and the address it prints';
    throw new CliError(`cannot reach Redis at ${safeUrl(url)}: ${why}${hint}`);
  } finally {
    conn.disconnect();
  }
}

/** Reaches one of the cluster's seed nodes (the others are found from it), or says why none. */
async function probeCluster(nodes: readonly ClusterSeed[]): Promise<void> {
  const failures: string[] = [];
  for (const n of nodes) {
    try {
      return await probe(`redis://${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`, true);
    } catch (err) {
      failures.push((err as Error).message);
    }
  }
  throw new CliError(`cannot reach any node of the Redis Cluster: ${failures.join('; ')}`);
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
  if (globals.urlFlag)
    throw new CliError(
      "--url reaches a running server's API; this command runs on a store itself: give --redis or --redis-cluster",
      EXIT.usage,
    );
  const oneShot = longLived ? undefined : { maxRetriesPerRequest: 2 };
  if (globals.redisCluster) await probeCluster(globals.redisCluster);
  else await probe(globals.redis, globals.redisChosen);
  const { RedisStore } = await import('../store/redis/RedisStore.js');
  try {
    const where = globals.redisCluster
      ? { cluster: { nodes: globals.redisCluster, redisOptions: oneShot } }
      : { url: globals.redis, redis: oneShot };
    return new RedisStore({
      ...where,
      prefix: globals.prefix,
      commandTimeoutMs: options.commandTimeoutMs,
    });
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/** What the job commands talk to: the HTTP API with --url (MACHINIST_URL), else the store of --redis. */
export async function openBackend(
  globals: GlobalOptions,
  options: { maxPayloadBytes?: number; local?: readonly AnyDefinition[] } = {},
): Promise<CliBackend> {
  if (globals.url) {
    const { HttpBackend } = await import('./backend/HttpBackend.js');
    return new HttpBackend(globals.url, globals.token);
  }
  const store = await openStore(globals);
  const [{ Client }, { StoreBackend }] = await Promise.all([
    import('../client/Client.js'),
    import('./backend/StoreBackend.js'),
  ]);
  // Given the definitions (--jobs), the Client checks inputs against their schemas too.
  const client = new Client<never>({
    store,
    maxPayloadBytes: options.maxPayloadBytes,
    jobs: options.local?.length ? (options.local as never) : undefined,
  });
  const where = `Redis at ${redisLabel(globals)}, prefix '${globals.prefix}'`;
  return new StoreBackend(store, client, where, options.local);
}

/** Runs `fn` with the backend of the global options, then closes it. */
export async function withBackend<T>(
  globals: GlobalOptions,
  fn: (backend: CliBackend) => Promise<T>,
  options: { maxPayloadBytes?: number; local?: readonly AnyDefinition[] } = {},
): Promise<T> {
  const backend = await openBackend(globals, options);
  try {
    return await fn(backend);
  } finally {
    await backend.close();
  }
}
