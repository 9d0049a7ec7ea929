// Durability 'replicated': a write that creates jobs (enqueue, children, ingress drain) or a
// worker's commit is answered only once `replicas` replicas acknowledged it (WAIT), so that a
// failover promoting one of them keeps it. Redis replication is asynchronous: with 'async' (the
// default) a master acknowledges a write its replicas may never receive, and a failover in that
// window loses it (docs/production.md, "Failover", has the measured figures).
//
// THE SAME-CONNECTION RULE: WAIT counts the replicas that have every write *this connection*
// made before it, on *the server it is sent to*. So it goes in one pipeline with the script,
// on the same connection: on one Redis that is the connection the script used; on a Cluster,
// ioredis sends a pipeline whole to the node serving its keys' slot (WAIT names no key), so it
// reaches the master that took the write, never a random node (a keyless command sent alone
// would be routed anywhere and count the wrong master's replicas).
//
// What WAIT does not promise (docs/production.md): it is not consensus. A write WAIT reports
// short is still on the master (it is not rolled back) and usually reaches the replica later;
// a write WAIT confirmed can still be lost if the replica that had it is not the one promoted,
// or if both fail before it persists. It narrows the window; it does not close it.

import { isCluster, type RedisClient } from './redisClient.js';
import type { ScriptCalls } from './scriptCalls.js';

/** `RedisStoreOptions.durability`: 'async' (default), 'replicated' (one replica, 1 s), or both numbers. */
export type DurabilityOption = 'async' | 'replicated' | { replicas?: number; timeoutMs?: number };

/** Resolved 'replicated' durability: WAIT `replicas` `timeoutMs` after each job-creating write and commit. */
export interface Durability {
  readonly replicas: number;
  readonly timeoutMs: number;
}

export const REPLICATED_DEFAULTS: Durability = { replicas: 1, timeoutMs: 1_000 };

/** The write ops whose shortfalls are counted (RedisStore.replicaShortfalls). */
export type ReplicatedOp = 'enqueue' | 'commit' | 'drainIngress';

/** null for 'async'; throws a TypeError naming what is wrong. */
export function resolveDurability(
  option: DurabilityOption | undefined,
  commandTimeoutMs: number,
): Durability | null {
  if (option === undefined || option === 'async') return null;
  if (option === 'replicated') return checked(REPLICATED_DEFAULTS, commandTimeoutMs);
  if (typeof option !== 'object' || option === null)
    throw new TypeError(
      `RedisStore: durability must be 'async', 'replicated' or { replicas, timeoutMs } (got ${String(option)})`,
    );
  return checked(
    {
      replicas: option.replicas ?? REPLICATED_DEFAULTS.replicas,
      timeoutMs: option.timeoutMs ?? REPLICATED_DEFAULTS.timeoutMs,
    },
    commandTimeoutMs,
  );
}

function checked(d: Durability, commandTimeoutMs: number): Durability {
  if (!Number.isInteger(d.replicas) || d.replicas < 1)
    throw new TypeError(`RedisStore: durability.replicas must be an integer >= 1 (got ${d.replicas})`);
  // WAIT 0 blocks for ever; and an enqueue must learn the outcome before its own bound passes
  // (else it reports REDIS_UNAVAILABLE for a write that was taken).
  if (!Number.isInteger(d.timeoutMs) || d.timeoutMs < 1 || d.timeoutMs >= commandTimeoutMs)
    throw new TypeError(
      `RedisStore: durability.timeoutMs must be an integer >= 1 and below commandTimeoutMs (${commandTimeoutMs}); got ${d.timeoutMs}`,
    );
  return d;
}

/**
 * A store's 'replicated' durability: runs its writes with WAIT and counts the ones whose WAIT
 * came back short (a replica missing or lagging past `timeoutMs`).
 */
export class ReplicaWait {
  private readonly short = new Map<ReplicatedOp, number>();

  constructor(readonly durability: Durability) {}

  /**
   * Runs the script `name` and WAIT in one pipeline (THE SAME-CONNECTION RULE); resolves with
   * the script's reply and how many replicas acknowledged it (a shortfall is counted, and the
   * caller decides what it means). A script error rejects as it would without WAIT. `buffers`:
   * the reply's bulk strings as Buffers (ScriptCalls.run's).
   */
  async run(
    { redis, scripts }: { redis: RedisClient; scripts: ScriptCalls },
    op: ReplicatedOp,
    name: string,
    keys: string[],
    args: (string | number)[],
    buffers = false,
  ): Promise<{ reply: unknown; acked: number }> {
    let recovered = false;
    for (let redirects = 0; ; redirects++) {
      const pipe = redis.pipeline();
      scripts.queue(pipe, name, keys, args, buffers);
      pipe.wait(this.durability.replicas, this.durability.timeoutMs);
      const res = await pipe.exec();
      const [scriptErr, reply] = res?.[0] ?? [new Error('Connection is closed.'), null];
      if (scriptErr) {
        // A Cluster moved the slot (a failover, a reshard): the script did not run. ioredis
        // re-sends a redirected pipeline only when the rest of it is read-only, which WAIT is
        // not, so the redirect is followed here, after the slot map is read again.
        if (/^(MOVED|ASK) /.test(scriptErr.message) && redirects < MAX_REDIRECTS) {
          await refreshSlots(redis);
          continue;
        }
        // The library missing on that node ("Function not found": loaded again), or 'auto'
        // going over to EVALSHA: the script did not run; sent once more.
        if (!recovered && (await scripts.recover(scriptErr))) {
          recovered = true;
          continue;
        }
        throw scriptErr;
      }
      const [waitErr, acked] = res![1] ?? [new Error('Connection is closed.'), 0];
      if (waitErr) throw waitErr;
      const n = Number(acked);
      if (n < this.durability.replicas) this.short.set(op, (this.short.get(op) ?? 0) + 1);
      return { reply, acked: n };
    }
  }

  /** Writes answered with fewer replicas than asked, by op, since the store was made. */
  shortfalls(): Record<ReplicatedOp, number> {
    return {
      enqueue: this.short.get('enqueue') ?? 0,
      commit: this.short.get('commit') ?? 0,
      drainIngress: this.short.get('drainIngress') ?? 0,
    };
  }
}

/** ioredis's own limit of redirections followed for one command (ClusterOptions.maxRedirections). */
const MAX_REDIRECTS = 16;

/** On a Cluster, reads the slot map again (no-op on one Redis); a moment's pause between tries. */
async function refreshSlots(redis: RedisClient): Promise<void> {
  if (isCluster(redis)) await new Promise<void>((resolve) => redis.refreshSlotsCache(() => resolve()));
  await new Promise((r) => setTimeout(r, 50));
}
