// The production Store: every write is one Lua script (see lua/), every key of a queue shares
// the queue's hash tag. Blocking reads (waiting for work, following events, waiting for
// results) use connections of their own so they never hold up commands.
//
// Two kinds of call (see BoundedCalls.ts): a supervisor's (commit, heartbeat, reap, waits)
// go over `redis`, which waits out any outage and re-sends after it; a client's (enqueue,
// reads, cancel, send, results) go over a fail-fast connection and give up after
// `commandTimeoutMs` with REDIS_UNAVAILABLE, having written nothing that could land later.

import { Redis, type RedisOptions } from 'ioredis';
import { assertQueueName, queueKeys, queuesKey, registryKey, type QueueKeys } from '../keys.js';
import {
  type AuditEntry,
  type BrokenEntry,
  type CancelOutcome,
  type ClaimRequest,
  type CommitOp,
  type CommitResult,
  type ConnectionChange,
  type DeadLetter,
  type EnqueueResult,
  type IngressDecision,
  type IngressDrained,
  type FanState,
  type JobRecord,
  type JobStatus,
  type LeaseState,
  type ListQuery,
  type MachineInfo,
  type NewJob,
  type QueueEvent,
  type ReapResult,
  type Store,
  type WorkWaiter,
} from '../types.js';
import { defineScripts, type ScriptRunner } from './scripts.js';
import type { RedisContext } from './RedisContext.js';
import { BoundedCalls } from './BoundedCalls.js';
import { ConnectionWatch } from './ConnectionWatch.js';
import * as fanOps from './fanOutOps.js';
import * as listJobs from './listJobs.js';
import type { QueueCounts } from './listJobs.js';
import * as deadLetterOps from './deadLetterOps.js';
import * as leaseOps from './leaseOps.js';
import * as resultOps from './resultOps.js';
import * as eventOps from './eventOps.js';
import * as registryOps from './registryOps.js';
import * as enqueueOps from './enqueueOps.js';
import * as jobOps from './jobOps.js';
import * as ingressOps from './ingressOps.js';
import { RedisHookStore } from './RedisHookStore.js';
import type { HookStore } from '../../webhooks/HookStore.js';
import { commitRoundTrip } from './commitOps.js';
import { RedisWorkWaiter } from './RedisWorkWaiter.js';

export interface RedisStoreOptions {
  /** redis:// URL; or pass `redis` options. Default redis://127.0.0.1:6379. */
  url?: string;
  redis?: RedisOptions;
  /** Key prefix per deployment. Default 'machinist'. */
  prefix?: string;
  /**
   * How long finished (done/cancelled) records are kept. Default 7 days. Records are deleted
   * by the supervisors' reaper from the done and cancelled indexes (no TTL per record).
   */
  finishedTtlMs?: number;
  /** How long an idempotency key keeps naming its job. Default 7 days. */
  idempotencyTtlMs?: number;
  /** Approximate cap of each queue's event stream. Default 10,000. */
  eventsMaxLen?: number;
  /**
   * How long a client call (enqueue, get, cancel, send, waitForResult's reads, list, dead
   * letters, ...) keeps trying while Redis does not answer, before it rejects with
   * RedisUnavailableError (`REDIS_UNAVAILABLE`, naming the server). Supervisors retry their own
   * calls without limit. Default 5,000 ms.
   */
  commandTimeoutMs?: number;
}

const DAY = 24 * 3600 * 1000;
/** The `readers` key of a watcher's blocking connection. */
const resultsReader = (queue: string, watcherId: string): string => `results:${queue}:${watcherId}`;

export class RedisStore implements Store {
  readonly kind = 'redis';
  readonly prefix: string;
  readonly redis: Redis;
  private readonly scripts: Record<string, ScriptRunner>;
  private readonly finishedTtlMs: number;
  private readonly idemTtlMs: number;
  private readonly eventsMaxLen: number;
  private readonly keyCache = new Map<string, QueueKeys>();
  private readonly knownQueues = new Set<string>();
  /** Open work waiters (one per running supervisor), each on its own connection. */
  private readonly waiters = new Set<RedisWorkWaiter>();
  /** Blocking connections: one per queue for readEvents, one per watcher for readResults. */
  private readers = new Map<string, Redis>();
  private subscriber: Redis | undefined;
  private closed = false;
  private everReady = false;
  private readonly reconnectListeners = new Set<() => void>();
  private readonly ctx: RedisContext;
  /** Client calls: a fail-fast connection, retried until `commandTimeoutMs`. */
  private readonly calls: BoundedCalls;
  private readonly connection: ConnectionWatch;
  /** How long a client call keeps trying before REDIS_UNAVAILABLE (`RedisStoreOptions.commandTimeoutMs`). */
  readonly commandTimeoutMs: number;

  constructor(options: RedisStoreOptions = {}) {
    this.prefix = options.prefix ?? 'machinist';
    if (!/^[A-Za-z0-9._:-]{1,64}$/.test(this.prefix))
      throw new TypeError(`invalid key prefix '${this.prefix}'`);
    this.finishedTtlMs = options.finishedTtlMs ?? 7 * DAY;
    // An idempotency key must not outlive the record it names (it would return an expired id).
    this.idemTtlMs = Math.min(options.idempotencyTtlMs ?? 7 * DAY, this.finishedTtlMs);
    this.eventsMaxLen = options.eventsMaxLen ?? 10_000;
    const redisOptions: RedisOptions = { maxRetriesPerRequest: null, ...options.redis };
    this.redis = options.url ? new Redis(options.url, redisOptions) : new Redis(redisOptions);
    this.redis.on('error', () => {
      // ioredis reconnects by itself; a command in flight fails to its caller.
    });
    this.redis.on('ready', () => {
      if (!this.everReady) return void (this.everReady = true);
      // The server may have lost its data (a restart without AOF, a failover): queues this
      // store added to the queue set are added again on their next enqueue.
      this.knownQueues.clear();
      for (const l of [...this.reconnectListeners]) l();
    });
    // ioredis reconnects by itself and re-sends what was waiting; the watch reports outages.
    this.connection = new ConnectionWatch(this.redis);
    this.scripts = defineScripts(this.redis);
    this.ctx = this.contextFor(this.redis, this.scripts);
    const timeoutMs = options.commandTimeoutMs ?? 5_000;
    if (!(timeoutMs > 0)) throw new TypeError('RedisStore: commandTimeoutMs must be a number > 0');
    this.commandTimeoutMs = timeoutMs;
    this.calls = new BoundedCalls(this.redis, timeoutMs, (conn) =>
      this.contextFor(conn, defineScripts(conn)),
    );
  }

  private contextFor(redis: Redis, scripts: Record<string, ScriptRunner>): RedisContext {
    return {
      redis,
      prefix: this.prefix,
      keys: (queue) => this.keys(queue),
      run: (name, keys, args) => scripts[name]!(keys, args),
      eventsMaxLen: this.eventsMaxLen,
      finishedTtlMs: this.finishedTtlMs,
    };
  }

  /** See Store.watchConnection: the supervisors' connection going unreachable and back. */
  watchConnection(listener: (change: ConnectionChange) => void): () => void {
    return this.connection.watch(listener);
  }

  keys(queue: string): QueueKeys {
    let k = this.keyCache.get(queue);
    if (!k) {
      assertQueueName(queue);
      k = queueKeys(this.prefix, queue);
      this.keyCache.set(queue, k);
    }
    return k;
  }

  private run(name: string, keys: string[], args: (string | number)[]): Promise<any> {
    return this.scripts[name]!(keys, args);
  }

  /** Ids are the caller's (made before the first attempt): a resend after a lost reply carries
   * the same ones, and enqueue-5 does not create a job twice under one id. */
  enqueue(queue: string, jobs: NewJob[]): Promise<EnqueueResult[]> {
    const ids = jobs.length === 1 ? { jobId: jobs[0]!.id, queue } : { queue };
    return this.calls.call(
      'enqueue',
      (c) => enqueueOps.enqueue(c, queue, jobs, this.idemTtlMs, this.knownQueues),
      {
        ids,
        writes: true,
      },
    );
  }

  commit(queue: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> {
    return commitRoundTrip(this.ctx, queue, ops, claim);
  }

  fanOpen(
    queue: string,
    parentId: string,
    group: string,
    total: number,
    policy: 'failFast' | 'collect',
  ): Promise<FanState> {
    return fanOps.fanOpen(this.ctx, queue, parentId, group, total, policy);
  }

  fanGroups(queue: string, parentId: string): Promise<{ group: string; total: number; finished: number }[]> {
    return this.calls.call('get', (c) => fanOps.fanGroups(c, queue, parentId), {
      ids: { jobId: parentId, queue },
    });
  }

  childIds(queue: string, parentId: string, offset: number, limit: number): Promise<string[]> {
    return this.calls.call('cancel', (c) => fanOps.childIds(c, queue, parentId, offset, limit), {
      ids: { jobId: parentId, queue },
    });
  }

  relayOutbox(queue: string): Promise<number> {
    return fanOps.relayOutbox(this.ctx, queue);
  }

  list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    return this.calls.call('list', (c) => listJobs.list(c, query), { ids: { queue: query.queue } });
  }

  /** Bounded (REDIS_UNAVAILABLE after commandTimeoutMs): the API's and dashboard's reads use it. */
  now(): Promise<number> {
    return this.calls.call('now', async (c) => {
      const [seconds, micros] = await c.redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    });
  }

  async readInbox(queue: string, id: string, from: number): Promise<string[]> {
    return this.redis.lrange(this.keys(queue).inbox(id), from, -1);
  }

  /** The event id makes a resend safe: send-5 takes one id once. */
  send(queue: string, id: string, event: string, eventType: string, eventId: string): Promise<boolean> {
    return this.calls.call('send', (c) => jobOps.send(c, queue, id, event, eventType, eventId), {
      ids: { jobId: id, queue },
      writes: true,
    });
  }

  heartbeat(queue: string, leases: { id: string; token: string }[], leaseMs: number): Promise<LeaseState[]> {
    return leaseOps.heartbeat(this.ctx, queue, leases, leaseMs);
  }

  reap(queue: string, options: { maxLeaseRequeues: number; lockMs?: number }): Promise<ReapResult> {
    return leaseOps.reap(this.ctx, queue, options);
  }

  /** Retention: deletes done and cancelled records older than `finishedTtlMs` (see leaseOps.ts). */
  sweep(queue: string): Promise<number> {
    return leaseOps.sweep(this.ctx, queue);
  }

  workWaiter(queue: string): WorkWaiter {
    const waiter = new RedisWorkWaiter(this.redis, this.keys(queue).marker, (w) => this.waiters.delete(w));
    if (this.closed) waiter.close();
    else this.waiters.add(waiter);
    return waiter;
  }

  /** See Store.drainIngress (lua/drainIngress-7.lua); waits out an outage like a supervisor's calls. */
  drainIngress(
    queue: string,
    max: number,
    decide: (raw: Buffer) => IngressDecision,
  ): Promise<IngressDrained> {
    return ingressOps.drainIngress(this.ctx, queue, max, decide);
  }

  /**
   * Waits until the ingress list has entries: BLMOVE from the list's right end to the same end,
   * which Redis documents as a no-op for the list, so waiting changes nothing and costs one
   * blocked command per timeout (no polling).
   */
  ingressWaiter(queue: string): WorkWaiter {
    const waiter = new RedisWorkWaiter(
      this.redis,
      this.keys(queue).ingress,
      (w) => this.waiters.delete(w),
      (conn, key, seconds) => conn.blmove(key, key, 'RIGHT', 'RIGHT', seconds),
    );
    if (this.closed) waiter.close();
    else this.waiters.add(waiter);
    return waiter;
  }

  /**
   * The webhook dispatcher's state for one queue (src/webhooks/WebhookDispatcher.ts), on
   * connections of its own; `close()` it when done.
   */
  webhookStore(queue: string): HookStore {
    return new RedisHookStore(this.redis, this.keys(queue));
  }

  /** Listens for control messages addressed to one worker (one subscriber connection for all). */
  async subscribeControl(
    queue: string,
    workerId: string,
    onMessage: (message: string) => void,
  ): Promise<() => Promise<void>> {
    const channel = this.keys(queue).control(workerId);
    if (!this.subscriber) {
      this.subscriber = this.redis.duplicate();
      this.subscriber.on('error', () => {});
    }
    const subscriber = this.subscriber;
    const listener = (ch: string, msg: string) => {
      if (ch === channel) onMessage(msg);
    };
    subscriber.on('message', listener);
    await subscriber.subscribe(channel);
    return async () => {
      subscriber.off('message', listener);
      await subscriber.unsubscribe(channel).catch(() => undefined);
    };
  }

  getJob(id: string, queue?: string): Promise<JobRecord | null> {
    return this.calls.call('get', (c) => jobOps.getJob(c, id, queue), { ids: { jobId: id, queue } });
  }

  async jobStatus(
    id: string,
    queue: string,
  ): Promise<{ status: JobStatus; cancelRequested: boolean } | null> {
    const [st, cx] = await this.redis.hmget(this.keys(queue).job(id), 'st', 'cx');
    return st ? { status: st as JobStatus, cancelRequested: cx === '1' } : null;
  }

  getLog(id: string, queue?: string): Promise<AuditEntry[]> {
    return this.calls.call(
      'events',
      async (c) => eventOps.getLog(c, id, await jobOps.queueOf(c, id, queue)),
      {
        ids: { jobId: id, queue },
      },
    );
  }

  /** Sent again after a lost reply: a job cancelled by the first attempt then reads `finished`. */
  cancel(id: string, queue?: string, reason = 'cancelled by request'): Promise<CancelOutcome> {
    return this.calls.call('cancel', (c) => jobOps.cancel(c, id, queue, reason), {
      ids: { jobId: id, queue },
      writes: true,
    });
  }

  deadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    return this.calls.call('deadLetters', (c) => deadLetterOps.deadLetters(c, queue, limit), {
      ids: { queue },
    });
  }

  broken(queue: string, limit: number): Promise<BrokenEntry[]> {
    return this.calls.call('broken', (c) => deadLetterOps.broken(c, queue, limit), { ids: { queue } });
  }

  /** Not sent again once it may have reached Redis: the retried job may be running already. */
  retryDeadLetter(id: string, queue?: string): Promise<void> {
    return this.calls.call('retryDeadLetter', (c) => deadLetterOps.retryDeadLetter(c, id, queue), {
      ids: { jobId: id, queue },
      writes: true,
      resend: 'if-unsent',
    });
  }

  purgeDeadLetters(queue: string): Promise<number> {
    return this.calls.call('purgeDeadLetters', (c) => deadLetterOps.purgeDeadLetters(c, queue), {
      ids: { queue },
      writes: true,
    });
  }

  /** Sent again after a lost reply: the second attempt finds nothing to purge and says false. */
  purgeDeadLetter(id: string, queue?: string): Promise<boolean> {
    return this.calls.call('purgeDeadLetter', (c) => deadLetterOps.purgeDeadLetter(c, id, queue), {
      ids: { jobId: id, queue },
      writes: true,
    });
  }

  /** A connection of its own for a blocking read (it is held while the read blocks). */
  private blockingReader(key: string): Redis {
    let reader = this.readers.get(key);
    if (!reader) {
      reader = this.redis.duplicate();
      reader.on('error', () => {});
      this.readers.set(key, reader);
    }
    return reader;
  }

  readEvents(queue: string, cursor: string, blockMs: number, count = 500): Promise<QueueEvent[]> {
    // A read that does not block is bounded like any client call (the dashboard's overview
    // reads pages of the stream); a blocking one is its caller's to bound (EventHub).
    if (blockMs <= 0)
      return this.calls.call(
        'readEvents',
        (c) => eventOps.readEvents(c, () => c.redis, queue, cursor, 0, count),
        { ids: { queue } },
      );
    return eventOps.readEvents(
      this.ctx,
      () => this.blockingReader('events:' + queue),
      queue,
      cursor,
      blockMs,
      count,
    );
  }

  watchJob(id: string, queue: string, watcherId: string): Promise<JobRecord | null> {
    return this.calls.call('waitForResult', (c) => resultOps.watchJob(c, queue, id, watcherId), {
      ids: { jobId: id, queue },
    });
  }

  unwatchJob(id: string, queue: string, watcherId: string): Promise<void> {
    return this.calls.call('unwatchJob', (c) => resultOps.unwatchJob(c, queue, id, watcherId), {
      ids: { jobId: id, queue },
      writes: true,
    });
  }

  /** Over a fail-fast reader of its own: a wait learns of an outage within `commandTimeoutMs`. */
  readResults(queue: string, watcherId: string, blockMs: number): Promise<JobRecord[]> {
    const key = resultsReader(queue, watcherId);
    let reader = this.readers.get(key);
    if (!reader) this.readers.set(key, (reader = this.calls.reader()));
    const r = reader;
    return this.calls.call('waitForResult', (c) => resultOps.readResults(c, r, queue, watcherId, blockMs), {
      ids: { queue },
      reader: r,
      blockMs,
    });
  }

  endResults(queue: string, watcherId: string): void {
    const key = resultsReader(queue, watcherId);
    this.readers.get(key)?.disconnect();
    this.readers.delete(key);
  }

  lastEventCursor(queue: string): Promise<string> {
    return this.calls.call('lastEventCursor', (c) => eventOps.lastEventCursor(c, queue), { ids: { queue } });
  }

  async evictionPolicy(): Promise<string | null> {
    try {
      const res = await this.redis.config('GET', 'maxmemory-policy');
      return res[1] ?? null;
    } catch {
      return null; // CONFIG refused (managed Redis, ACL): the caller cannot check
    }
  }

  async appendOnly(): Promise<boolean | null> {
    try {
      const res = await this.redis.config('GET', 'appendonly');
      return res[1] === undefined ? null : res[1] === 'yes';
    } catch {
      return null; // CONFIG refused (managed Redis, ACL): the caller cannot check
    }
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  registerMachines(machines: MachineInfo[], options: { replaceFingerprints?: boolean } = {}): Promise<void> {
    return registryOps.registerMachines(
      this.ctx,
      registryKey(this.prefix),
      machines,
      options.replaceFingerprints,
    );
  }

  async countUnfinished(machine: string, version: number): Promise<number> {
    let n = 0;
    for (const queue of await this.queues())
      n += await listJobs.countUnfinished(this.ctx, queue, machine, version);
    return n;
  }

  registerQueue(queue: string): Promise<void> {
    assertQueueName(queue);
    return registryOps.registerQueue(this.ctx, queuesKey(this.prefix), queue);
  }

  machines(): Promise<MachineInfo[]> {
    return this.calls.call('machines', (c) => registryOps.machines(c, registryKey(this.prefix)));
  }

  queues(): Promise<string[]> {
    return this.calls.call('queues', async (c) => (await c.redis.smembers(queuesKey(this.prefix))).sort());
  }

  async forgetQueue(queue: string): Promise<void> {
    this.knownQueues.delete(queue);
    await this.redis.srem(queuesKey(this.prefix), queue);
  }

  /**
   * How many jobs each index of a queue holds (ZCARD of each, one round trip). `active` holds
   * loading and working jobs; `queued` counts only jobs due now, `delayed` the ones waiting.
   * @example const { queued, active, dead } = await store.counts('default');
   */
  counts(queue: string): Promise<QueueCounts> {
    return this.calls.call('counts', (c) => listJobs.counts(c, queue), { ids: { queue } });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of [...this.waiters]) w.close();
    this.connection.close();
    for (const r of this.readers.values()) r.disconnect();
    this.readers.clear();
    this.subscriber?.disconnect();
    this.calls.close();
    // QUIT lets the replies to what was sent arrive first; it never comes from a Redis that is
    // down (it waits behind the offline queue), so it is bounded.
    const quit = this.redis.quit().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([quit, new Promise((r) => (timer = setTimeout(r, 1_000)))]);
    clearTimeout(timer);
    this.redis.disconnect();
  }
}
