// The production Store: every write is one Lua script (see lua/), every key of a queue shares
// the queue's hash tag. Blocking reads (waiting for work, following events, waiting for
// results) use connections of their own so they never hold up commands.

import { Redis, type RedisOptions } from 'ioredis';
import { JobNotFoundError, fromScriptError } from '../../errors.js';
import { assertQueueName, queueKeys, queuesKey, registryKey, type QueueKeys } from '../keys.js';
import {
  type AuditEntry,
  type BrokenEntry,
  type CancelOutcome,
  type ClaimRequest,
  type CommitOp,
  type CommitResult,
  type DeadLetter,
  type EnqueueResult,
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
import * as fanOps from './fanOutOps.js';
import * as listJobs from './listJobs.js';
import type { QueueCounts } from './listJobs.js';
import * as deadLetterOps from './deadLetterOps.js';
import * as leaseOps from './leaseOps.js';
import * as resultOps from './resultOps.js';
import * as eventOps from './eventOps.js';
import * as registryOps from './registryOps.js';
import { commitRoundTrip } from './commitOps.js';
import { decodeJob, JOB_FIELDS } from './decodeJob.js';
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
}

const DAY = 24 * 3600 * 1000;
/** The `readers` key of a watcher's blocking connection. */
const resultsReader = (queue: string, watcherId: string): string => `results:${queue}:${watcherId}`;

export class RedisStore implements Store {
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
    this.scripts = defineScripts(this.redis);
    this.ctx = {
      redis: this.redis,
      keys: (queue) => this.keys(queue),
      run: (name, keys, args) => this.run(name, keys, args),
      eventsMaxLen: this.eventsMaxLen,
      finishedTtlMs: this.finishedTtlMs,
    };
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

  async enqueue(queue: string, jobs: NewJob[]): Promise<EnqueueResult[]> {
    const k = this.keys(queue);
    if (!this.knownQueues.has(queue)) {
      await this.registerQueue(queue);
      this.knownQueues.add(queue);
    }
    const args: (string | number)[] = [k.base, this.eventsMaxLen, this.idemTtlMs, jobs.length];
    for (const j of jobs) {
      // The rarely used fields travel as one JSON array, '' when all are empty (see enqueue-5.lua).
      const extras =
        j.idempotencyKey ||
        j.parentId ||
        j.options ||
        j.parentQueue ||
        j.group ||
        j.index !== undefined ||
        j.revive
          ? JSON.stringify([
              j.idempotencyKey ?? '',
              j.parentId ?? '',
              j.options ?? '',
              j.parentQueue ?? '',
              j.group ?? '',
              j.index === undefined ? '' : String(j.index),
              j.revive ? '1' : '',
            ])
          : '';
      args.push(j.id, j.machine, j.version, j.input, j.band, j.delayMs, j.maxAttempts, extras);
    }
    const res = (await this.run('enqueue', [k.queued, k.delayed, k.meta, k.events, k.marker], args)) as
      number | (string | number)[];
    // A number: every job was created under its own id.
    if (typeof res === 'number') return jobs.map((j) => ({ id: j.id, created: true }));
    const out: EnqueueResult[] = [];
    for (let i = 0; i < res.length; i += 2) out.push({ id: String(res[i]), created: res[i + 1] === 1 });
    return out;
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
    return fanOps.fanGroups(this.ctx, queue, parentId);
  }

  childIds(queue: string, parentId: string, offset: number, limit: number): Promise<string[]> {
    return fanOps.childIds(this.ctx, queue, parentId, offset, limit);
  }

  relayOutbox(queue: string): Promise<number> {
    return fanOps.relayOutbox(this.ctx, queue);
  }

  list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    return listJobs.list(this.ctx, query);
  }

  async now(): Promise<number> {
    const [seconds, micros] = await this.redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  async readInbox(queue: string, id: string, from: number): Promise<string[]> {
    return this.redis.lrange(this.keys(queue).inbox(id), from, -1);
  }

  async send(queue: string, id: string, event: string, eventType: string, eventId: string): Promise<boolean> {
    const k = this.keys(queue);
    try {
      const delivered = await this.run(
        'send',
        [k.queued, k.waiting, k.delayed, k.events, k.marker],
        [k.base, this.eventsMaxLen, id, event, eventType, eventId],
      );
      return delivered === 1;
    } catch (err) {
      throw fromScriptError(err, { jobId: id, queue });
    }
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

  private async resolveQueue(id: string, queue?: string): Promise<string | null> {
    if (queue) return queue;
    const queues = await this.queues();
    if (queues.length === 0) return null;
    const pipe = this.redis.pipeline();
    for (const q of queues) pipe.exists(this.keys(q).job(id));
    const res = (await pipe.exec()) ?? [];
    const i = res.findIndex(([, n]) => n === 1);
    return i >= 0 ? queues[i]! : null;
  }

  async getJob(id: string, queue?: string): Promise<JobRecord | null> {
    const q = await this.resolveQueue(id, queue);
    if (!q) return null;
    const values = await this.redis.hmget(this.keys(q).job(id), ...JOB_FIELDS);
    return decodeJob(id, q, values);
  }

  async jobStatus(
    id: string,
    queue: string,
  ): Promise<{ status: JobStatus; cancelRequested: boolean } | null> {
    const [st, cx] = await this.redis.hmget(this.keys(queue).job(id), 'st', 'cx');
    return st ? { status: st as JobStatus, cancelRequested: cx === '1' } : null;
  }

  async getLog(id: string, queue?: string): Promise<AuditEntry[]> {
    const q = await this.resolveQueue(id, queue);
    if (!q) throw new JobNotFoundError(id, queue);
    return eventOps.getLog(this.ctx, id, q);
  }

  async cancel(id: string, queue?: string, reason = 'cancelled by request'): Promise<CancelOutcome> {
    const q = await this.resolveQueue(id, queue);
    if (!q) throw new JobNotFoundError(id, queue);
    const k = this.keys(q);
    try {
      const [result, status, kids] = (await this.run(
        'cancel',
        [k.queued, k.delayed, k.waiting, k.cancelled, k.events, k.active, k.meta, k.marker],
        [k.base, this.eventsMaxLen, this.finishedTtlMs, id, reason],
      )) as [CancelOutcome['result'], JobStatus, number];
      return { result, status, hasChildren: kids === 1, queue: q };
    } catch (err) {
      throw fromScriptError(err, { jobId: id, queue: q });
    }
  }

  deadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    return deadLetterOps.deadLetters(this.ctx, queue, limit);
  }

  broken(queue: string, limit: number): Promise<BrokenEntry[]> {
    return deadLetterOps.broken(this.ctx, queue, limit);
  }

  async retryDeadLetter(id: string, queue?: string): Promise<void> {
    const q = await this.resolveQueue(id, queue);
    if (!q) throw new JobNotFoundError(id, queue);
    const k = this.keys(q);
    try {
      await this.run(
        'retryDead',
        [k.dead, k.broken, k.failed, k.queued, k.events, k.marker],
        [k.base, this.eventsMaxLen, id],
      );
    } catch (err) {
      throw fromScriptError(err, { jobId: id, queue: q });
    }
  }

  async purgeDeadLetters(queue: string): Promise<number> {
    const k = this.keys(queue);
    let total = 0;
    for (;;) {
      const n = Number(
        await this.run('purgeDead', [k.dead, k.failed, k.broken], [k.base, this.finishedTtlMs, 1000]),
      );
      total += n;
      if (n < 1000) return total;
    }
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
    return resultOps.watchJob(this.ctx, queue, id, watcherId);
  }

  unwatchJob(id: string, queue: string, watcherId: string): Promise<void> {
    return resultOps.unwatchJob(this.ctx, queue, id, watcherId);
  }

  readResults(queue: string, watcherId: string, blockMs: number): Promise<JobRecord[]> {
    const reader = this.blockingReader(resultsReader(queue, watcherId));
    return resultOps.readResults(this.ctx, reader, queue, watcherId, blockMs);
  }

  endResults(queue: string, watcherId: string): void {
    const key = resultsReader(queue, watcherId);
    this.readers.get(key)?.disconnect();
    this.readers.delete(key);
  }

  lastEventCursor(queue: string): Promise<string> {
    return eventOps.lastEventCursor(this.ctx, queue);
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

  registerMachines(machines: MachineInfo[]): Promise<void> {
    return registryOps.registerMachines(this.ctx, registryKey(this.prefix), machines);
  }

  registerQueue(queue: string): Promise<void> {
    assertQueueName(queue);
    return registryOps.registerQueue(this.ctx, queuesKey(this.prefix), queue);
  }

  machines(): Promise<MachineInfo[]> {
    return registryOps.machines(this.ctx, registryKey(this.prefix));
  }

  async queues(): Promise<string[]> {
    return (await this.redis.smembers(queuesKey(this.prefix))).sort();
  }

  /**
   * How many jobs each index of a queue holds (ZCARD of each, one round trip). `active` holds
   * loading and working jobs; `queued` counts only jobs due now, `delayed` the ones waiting.
   * @example const { queued, active, dead } = await store.counts('default');
   */
  counts(queue: string): Promise<QueueCounts> {
    return listJobs.counts(this.ctx, queue);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of [...this.waiters]) w.close();
    for (const r of this.readers.values()) r.disconnect();
    this.readers.clear();
    this.subscriber?.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
