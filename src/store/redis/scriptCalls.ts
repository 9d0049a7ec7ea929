// How one connection runs the scripts of lua/: FCALL of the Functions library (luaLibrary.ts),
// or EVALSHA of each script (ioredis's defineCommand, which sends EVAL once per socket and
// EVALSHA after), by RedisStoreOptions.scripts:
//   'functions'  FCALL only.
//   'eval'       EVALSHA only (what every Machinist before the library did).
//   'auto'       FCALL, and EVALSHA for good on this connection once the server shows it cannot:
//                no FCALL or FUNCTION command (Redis < 7), or the library refused (an ACL
//                without FUNCTION LOAD, a server whose Lua does not take it).
// THE LIBRARY IS LOADED on every master when the connection is ready (a cluster's masters
// from its slot map), and again wherever a call answers "Function not found" (a new master, a
// failover to a node that never had it, FUNCTION FLUSH, a restart without persistence), after
// which the call is sent once more, as ioredis does with NOSCRIPT. Replicas receive it by
// replication. FUNCTION LOAD never replaces: a library of this name IS this code (its name is
// the hash of its text), so "already exists" (another process won the race) is success.

import type { ChainableCommander } from 'ioredis';
import { callErrorKind, replyCode } from '../callErrors.js';
import { isCluster, mastersOf, type RedisClient } from './redisClient.js';
import type { LuaLibrary } from './luaLibrary.js';
import { directFcall, sendFcall } from './fcallCommand.js';

/** RedisStoreOptions.scripts: see the file header. */
export type ScriptsMode = 'auto' | 'functions' | 'eval';

export interface ScriptSpec {
  name: string;
  numberOfKeys: number;
  lua: string;
}

const FUNCTION_NOT_FOUND = /Function not found/;
/** Redis < 7 (or a server without Functions): FCALL or FUNCTION is not a command there. */
const NO_FUNCTIONS = /unknown command .?(fcall|function)|unknown subcommand/i;
const ALREADY_LOADED = /already exists/;

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Whether a server's answer to FCALL or FUNCTION LOAD says it will not run the library (so
 * 'auto' goes to EVALSHA): no such command, an ACL refusing it, a library it cannot compile.
 * Not an answer that means "not now" (OOM, LOADING, a lost connection): the call fails and is
 * retried as any call is.
 */
function refusesFunctions(err: unknown): boolean {
  const message = messageOf(err);
  if (NO_FUNCTIONS.test(message)) return true;
  if ((err as { name?: unknown } | null)?.name !== 'ReplyError') return false;
  return replyCode(message) === 'NOPERM' || callErrorKind(err) === 'poison';
}

export class ScriptCalls {
  private useEval: boolean;
  private readonly specs = new Map<string, ScriptSpec>();
  private loading: Promise<void> | undefined;
  /** FCALLs on this connection go as one flat Command (fcallCommand.ts). */
  private readonly direct: boolean;

  constructor(
    private readonly redis: RedisClient,
    scripts: readonly ScriptSpec[],
    /** Built on first use: an 'eval' store never needs it. */
    private readonly libraryOf: () => LuaLibrary,
    readonly mode: ScriptsMode,
  ) {
    this.useEval = mode === 'eval';
    this.direct = directFcall(redis);
    // Defined in every mode: 'auto' may come to need them. (A script named like a command,
    // watch-1.lua, takes the name over on this connection, as it always did.)
    for (const s of scripts) {
      redis.defineCommand(s.name, { numberOfKeys: s.numberOfKeys, lua: s.lua });
      this.specs.set(s.name, s);
    }
    if (this.useEval) return;
    const loadNow = (): void => {
      this.load().catch(() => {
        // A call that meets "Function not found" loads it again, and fails if that fails.
      });
    };
    // At once: on a connection still connecting, the FUNCTION LOAD waits in ioredis's offline
    // queue ahead of any FCALL (and calls wait for it, see run). Then at every reconnect (the
    // server may have restarted empty, or be another one after a failover), unless one is on.
    loadNow();
    redis.on('ready', () => {
      if (!this.loading) loadNow();
    });
  }

  /** Whether calls go over EVALSHA now ('eval', or 'auto' on a server without the library). */
  get evaluating(): boolean {
    return this.useEval;
  }

  private spec(name: string): ScriptSpec {
    const s = this.specs.get(name);
    if (!s) throw new Error(`no lua script named ${name}`);
    return s;
  }

  private send(
    target: RedisClient | ChainableCommander,
    name: string,
    keys: string[],
    args: (string | number)[],
    buffers: boolean,
  ) {
    const s = this.spec(name);
    if (this.useEval)
      // defineCommand's method, or its Buffer variant (bulk strings as Buffers).
      return (target as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[
        buffers ? `${name}Buffer` : name
      ]!(...keys, ...args);
    if (this.direct && target === this.redis)
      return sendFcall(this.redis, this.libraryOf().functionName(name), s.numberOfKeys, keys, args, buffers);
    const fn = this.libraryOf().functionName(name);
    return buffers
      ? target.callBuffer('fcall', fn, s.numberOfKeys, ...keys, ...args)
      : target.fcall(fn, s.numberOfKeys, ...keys, ...args);
  }

  /**
   * Runs script `name` with `keys` and `args` (as many keys as its file name says). Its reply's
   * bulk strings come back as text, or as Buffers when `buffers` (a reply to decode by bytes:
   * commit-12's packed claim).
   */
  async run(name: string, keys: string[], args: (string | number)[], buffers = false): Promise<unknown> {
    if (this.loading) await this.loading.catch(() => {});
    try {
      return await this.send(this.redis, name, keys, args, buffers);
    } catch (err) {
      if (!(await this.recover(err))) throw err;
      return this.send(this.redis, name, keys, args, buffers);
    }
  }

  /** Adds a call of script `name` to `pipe`, a pipeline of this connection (`buffers`: as for run). */
  queue(
    pipe: ChainableCommander,
    name: string,
    keys: string[],
    args: (string | number)[],
    buffers = false,
  ): void {
    void this.send(pipe, name, keys, args, buffers);
  }

  /**
   * After a call failed with `err`: true when sending it again is worth it, because the library
   * was loaded again ("Function not found") or the calls went over to EVALSHA ('auto' on a server
   * that refuses Functions). Throws what the load threw.
   */
  async recover(err: unknown): Promise<boolean> {
    if (this.useEval) return false;
    const message = messageOf(err);
    if (FUNCTION_NOT_FOUND.test(message)) {
      await this.load();
      return true;
    }
    if (
      this.mode === 'auto' &&
      (NO_FUNCTIONS.test(message) || (/fcall/i.test(message) && replyCode(message) === 'NOPERM'))
    ) {
      this.useEval = true;
      return true;
    }
    return false;
  }

  /** Loads the library on every master (once at a time per connection). */
  load(): Promise<void> {
    this.loading ??= this.loadOnMasters().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async loadOnMasters(): Promise<void> {
    const nodes = isCluster(this.redis) ? await mastersOf(this.redis) : [this.redis];
    try {
      await Promise.all(
        nodes.map((node) =>
          node.call('FUNCTION', 'LOAD', this.libraryOf().code).catch((err: unknown) => {
            if (!ALREADY_LOADED.test(messageOf(err))) throw err;
          }),
        ),
      );
    } catch (err) {
      if (this.mode === 'auto' && refusesFunctions(err)) {
        this.useEval = true;
        return;
      }
      throw err;
    }
  }
}
