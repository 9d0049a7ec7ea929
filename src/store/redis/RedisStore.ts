// The production Store: every write is one Lua script (see lua/), every key of a queue shares
// the queue's hash tag. Blocking reads (waiting for work, following events) use connections of
// their own so they never hold up commands.

import { Redis, type RedisOptions } from 'ioredis';
import { JobNotFoundError, fromScriptError, type StoredError } from '../../errors.js';
import { assertQueueName, queueKeys, queuesKey, registryKey, type QueueKeys } from '../keys.js';
import {
  type AuditEntry,
  type BrokenEntry,
  type CancelOutcome,
  type ClaimRequest,
  type ClaimedJob,
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
} from '../types.js';
import { defineScripts, type ScriptRunner } from './scripts.js';
import { encodeOps } from './encodeOps.js';
import { decodeJob, JOB_FIELDS } from './decodeJob.js';

export interface RedisStoreOptions {
  /** redis:// URL; or pass `redis` options. Default redis://127.0.0.1:6379. */
  url?: string;
  redis?: RedisOptions;
  /** Key prefix per deployment. Default 'machinist'. */
  prefix?: string;
  /** How long finished (done/cancelled) records are kept. Default 7 days. */
  finishedTtlMs?: number;
  /** How long an idempotency key keeps naming its job. Default 7 days. */
  idempotencyTtlMs?: number;
  /** Approximate cap of each queue's event stream. Default 10,000. */
  eventsMaxLen?: number;
}

const DAY = 24 * 3600 * 1000;
/** Statuses in the order `list` walks them when no status is given, with the index holding each. */
type IndexName = 'active' | 'queued' | 'delayed' | 'waiting' | 'done' | 'failed' | 'cancelled';
const LIST_ORDER: readonly IndexName[] = [
  'active',
  'queued',
  'delayed',
  'waiting',
  'done',
  'failed',
  'cancelled',
];

export class RedisStore implements Store {
  readonly prefix: string;
  readonly redis: Redis;
  private readonly scripts: Record<string, ScriptRunner>;
  private readonly finishedTtlMs: number;
  private readonly idemTtlMs: number;
  private readonly eventsMaxLen: number;
  private readonly keyCache = new Map<string, QueueKeys>();
  private readonly knownQueues = new Set<string>();
  private blocking: Redis | undefined;
  private readers = new Map<string, Redis>();
  private subscriber: Redis | undefined;
  private closed = false;

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
    this.scripts = defineScripts(this.redis);
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
      await this.redis.sadd(queuesKey(this.prefix), queue);
      this.knownQueues.add(queue);
    }
    const args: (string | number)[] = [k.base, this.eventsMaxLen, this.idemTtlMs, jobs.length];
    for (const j of jobs) {
      // The rarely used fields travel as one JSON array, '' when all are empty (see enqueue-5.lua).
      const extras =
        j.idempotencyKey || j.parentId || j.options || j.parentQueue || j.group || j.index !== undefined
          ? JSON.stringify([
              j.idempotencyKey ?? '',
              j.parentId ?? '',
              j.options ?? '',
              j.parentQueue ?? '',
              j.group ?? '',
              j.index === undefined ? '' : String(j.index),
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

  async commit(queue: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> {
    const k = this.keys(queue);
    const args: (string | number)[] = [
      k.base,
      this.eventsMaxLen,
      this.finishedTtlMs,
      claim?.workerId ?? '',
      claim?.leaseMs ?? 0,
      claim?.max ?? 0,
      claim ? `|${claim.loadMachines.join('|')}|` : '',
      ops.length,
    ];
    encodeOps(ops, args);
    const [written, claimedFlat, nextDue, now] = (await this.run(
      'commit',
      [
        k.queued,
        k.delayed,
        k.active,
        k.meta,
        k.events,
        k.marker,
        k.waiting,
        k.done,
        k.failed,
        k.cancelled,
        k.dead,
        k.broken,
      ],
      args,
    )) as [number[], string[], string | null, number];
    const claimed: ClaimedJob[] = [];
    for (let i = 0; i < claimedFlat.length; i += 15) {
      const f = claimedFlat;
      claimed.push({
        id: f[i]!,
        token: f[i + 1]!,
        machine: f[i + 2] || undefined,
        version: Number(f[i + 3]),
        input: f[i + 4] || undefined,
        snapshot: f[i + 5] || undefined,
        attempt: Number(f[i + 6]) || 1,
        maxAttempts: Number(f[i + 7]) || 1,
        leaseRequeues: Number(f[i + 8]) || 0,
        parentId: f[i + 9] || undefined,
        options: f[i + 10] || undefined,
        status: f[i + 11] as JobStatus,
        inbox: Number(f[i + 12]) || 0,
        parentQueue: f[i + 13] || undefined,
        hasInbox: f[i + 14] === '1',
      });
    }
    return {
      written: written.map((w) => w === 1),
      claimed,
      nextDueAt: nextDue ? Number(nextDue) : null,
      redisNow: Number(now),
    };
  }

  async fanOpen(
    queue: string,
    parentId: string,
    group: string,
    total: number,
    policy: 'failFast' | 'collect',
  ): Promise<FanState> {
    const k = this.keys(queue);
    const flat = (await this.run(
      'fanOpen',
      [k.fan(parentId, group), k.job(parentId)],
      [total, policy, group],
    )) as string[];
    const state: FanState = { total, policy, finished: 0, failed: 0, results: new Map() };
    for (let i = 0; i < flat.length; i += 2) {
      const f = flat[i]!;
      const v = flat[i + 1]!;
      if (f === 'n') state.total = Number(v);
      else if (f === 'p') state.policy = v as FanState['policy'];
      else if (f === 'd') state.finished = Number(v);
      else if (f === 'f') state.failed = Number(v);
      else if (f[0] === 'r') state.results.set(Number(f.slice(1)), v);
    }
    return state;
  }

  async fanGroups(
    queue: string,
    parentId: string,
  ): Promise<{ group: string; total: number; finished: number }[]> {
    const k = this.keys(queue);
    const text = await this.redis.hget(k.job(parentId), 'fg');
    if (!text) return [];
    const groups = text.split('\n').map((line) => {
      const [group = '', total = '0'] = line.split('\t');
      return { group, total: Number(total), finished: 0 };
    });
    const pipe = this.redis.pipeline();
    for (const g of groups) pipe.hget(k.fan(parentId, g.group), 'd');
    const res = (await pipe.exec()) ?? [];
    res.forEach(([, d], i) => (groups[i]!.finished = Number(d ?? 0)));
    return groups;
  }

  async childIds(queue: string, parentId: string, offset: number, limit: number): Promise<string[]> {
    return this.redis.zrange(this.keys(queue).children(parentId), String(offset), String(offset + limit - 1));
  }

  async relayOutbox(queue: string): Promise<number> {
    const k = this.keys(queue);
    const ids = await this.redis.zrange(k.base + 'outbox', '0', '99');
    let relayed = 0;
    for (const id of ids) {
      const [par, pq, pg, pi, st, o, e] = await this.redis.hmget(
        k.job(id),
        'par',
        'pq',
        'pg',
        'pi',
        'st',
        'o',
        'e',
      );
      if (par && pq && pg && st) {
        let pk: QueueKeys;
        try {
          pk = this.keys(pq);
        } catch {
          // A parent queue name that cannot be a queue: nothing to deliver to; drop the entry.
          await this.redis.zrem(k.base + 'outbox', id);
          continue;
        }
        const result =
          st === 'done'
            ? `{"s":"done","o":${o ?? 'null'}}`
            : st === 'failed'
              ? `{"s":"failed","e":${e ?? 'null'}}`
              : '{"s":"cancelled"}';
        await this.run(
          'fanIn',
          [pk.fan(par, pg), pk.job(par)],
          [pk.base, par, pg, pi ?? '0', st, result, this.eventsMaxLen],
        );
        relayed++;
      }
      await this.redis.zrem(k.base + 'outbox', id);
    }
    return relayed;
  }

  async readInbox(queue: string, id: string, from: number): Promise<string[]> {
    return this.redis.lrange(this.keys(queue).inbox(id), from, -1);
  }

  async send(queue: string, id: string, event: string, eventType: string): Promise<void> {
    const k = this.keys(queue);
    try {
      await this.run(
        'send',
        [k.queued, k.waiting, k.delayed, k.events, k.marker],
        [k.base, this.eventsMaxLen, id, event, eventType],
      );
    } catch (err) {
      throw fromScriptError(err, { jobId: id, queue });
    }
  }

  async heartbeat(
    queue: string,
    leases: { id: string; token: string }[],
    leaseMs: number,
  ): Promise<LeaseState[]> {
    if (leases.length === 0) return [];
    const k = this.keys(queue);
    const args: (string | number)[] = [k.base, leaseMs];
    for (const l of leases) args.push(l.id, l.token);
    const res = (await this.run('heartbeat', [k.active], args)) as number[];
    return res.map((r) => (r === 0 ? 'held' : r === 2 ? 'cancel' : 'lost'));
  }

  async reap(queue: string, options: { maxLeaseRequeues: number; lockMs?: number }): Promise<ReapResult> {
    const k = this.keys(queue);
    const res = (await this.run(
      'reap',
      [k.active, k.queued, k.failed, k.dead, k.events, k.marker, k.done, k.cancelled],
      [k.base, this.eventsMaxLen, options.maxLeaseRequeues, this.finishedTtlMs, options.lockMs ?? 100],
    )) as [string[], string[]] | null;
    return res ? { requeued: res[0], failed: res[1] } : { requeued: [], failed: [] };
  }

  async waitForWork(queue: string, timeoutMs: number): Promise<void> {
    if (this.closed) return;
    const k = this.keys(queue);
    if (!this.blocking) {
      this.blocking = this.redis.duplicate();
      this.blocking.on('error', () => {});
    }
    const conn = this.blocking;
    try {
      await conn.bzpopmin(k.marker, Math.max(0.01, timeoutMs / 1000));
    } catch {
      // Interrupted (shutdown) or the connection dropped: either way the caller looks again.
      if (conn === this.blocking) await new Promise((r) => setTimeout(r, 50));
    }
  }

  interruptWait(): void {
    const b = this.blocking;
    this.blocking = undefined;
    b?.disconnect();
  }

  /** Listens for control messages (cancel) addressed to one worker. */
  async subscribeControl(
    queue: string,
    workerId: string,
    onMessage: (message: string) => void,
  ): Promise<void> {
    const channel = this.keys(queue).control(workerId);
    this.subscriber ??= this.redis.duplicate();
    this.subscriber.on('error', () => {});
    this.subscriber.on('message', (ch: string, msg: string) => {
      if (ch === channel) onMessage(msg);
    });
    await this.subscriber.subscribe(channel);
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

  private async getMany(queue: string, ids: string[]): Promise<JobRecord[]> {
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hmget(this.keys(queue).job(id), ...JOB_FIELDS);
    const res = (await pipe.exec()) ?? [];
    const out: JobRecord[] = [];
    res.forEach(([, values], i) => {
      const rec = decodeJob(ids[i]!, queue, values as (string | null)[]);
      if (rec) out.push(rec);
    });
    return out;
  }

  async getLog(id: string, queue?: string): Promise<AuditEntry[]> {
    const q = await this.resolveQueue(id, queue);
    if (!q) throw new JobNotFoundError(id, queue);
    const all = await this.redis.hgetall(this.keys(q).job(id));
    if (!all.m) throw new JobNotFoundError(id, q);
    const n = Number(all.ls ?? 0);
    const out: AuditEntry[] = [];
    for (let i = Math.max(1, n - 999); i <= n; i++) {
      const e = all[`l${i}`];
      if (e) out.push(decodeLogEntry(e));
    }
    return out;
  }

  async list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    const k = this.keys(query.queue);
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 1000);
    // Cursor: "<index position in LIST_ORDER or 'c'>:<offset>".
    const [part, offsetText] = (query.cursor ?? '').split(':');
    let offset = Number(offsetText ?? 0) || 0;
    const sources: { key: string; rev: boolean; status?: JobStatus }[] = [];
    if (query.parentId) {
      sources.push({ key: k.children(query.parentId), rev: false, status: query.status });
    } else if (query.status) {
      const map: Record<JobStatus, IndexName[]> = {
        queued: ['queued', 'delayed'],
        loading: ['active'],
        working: ['active'],
        waiting: ['waiting'],
        done: ['done'],
        failed: ['failed'],
        cancelled: ['cancelled'],
      };
      for (const name of map[query.status])
        sources.push({ key: k[name], rev: isFinishedIndex(name), status: query.status });
    } else {
      for (const name of LIST_ORDER) sources.push({ key: k[name], rev: isFinishedIndex(name) });
    }
    let si = Number(part ?? 0) || 0;
    const jobs: JobRecord[] = [];
    // Filters are applied to pages read from the index; scanning is bounded per call.
    let scanned = 0;
    while (si < sources.length && jobs.length < limit && scanned < limit * 20) {
      const src = sources[si]!;
      const page = limit * 2;
      const ids = src.rev
        ? await this.redis.zrevrange(src.key, offset, offset + page - 1)
        : await this.redis.zrange(src.key, String(offset), String(offset + page - 1));
      scanned += ids.length;
      const recs = await this.getMany(query.queue, ids);
      let used = 0;
      for (const id of ids) {
        used++;
        const r = recs.find((x) => x.id === id);
        if (!r) continue;
        if (src.status && r.status !== src.status) continue;
        if (query.machine && r.machine !== query.machine) continue;
        jobs.push(r);
        if (jobs.length >= limit) break;
      }
      offset += used;
      if (ids.length < page && used === ids.length) {
        si++;
        offset = 0;
      }
    }
    return { jobs, cursor: si < sources.length ? `${si}:${offset}` : null };
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

  async deadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    const k = this.keys(queue);
    const ids = await this.redis.zrevrange(k.dead, 0, limit - 1, 'WITHSCORES');
    const out: DeadLetter[] = [];
    const idList = ids.filter((_, i) => i % 2 === 0);
    const recs = await this.getMany(queue, idList);
    for (const r of recs) {
      out.push({
        id: r.id,
        queue,
        machine: r.machine,
        input: r.input,
        error: r.error,
        attempts: r.attempts,
        failedAt: r.finishedAt ?? 0,
      });
    }
    return out;
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
    return Number(await this.run('purgeDead', [k.dead, k.failed], [k.base, this.finishedTtlMs]));
  }

  async broken(queue: string, limit: number): Promise<BrokenEntry[]> {
    const k = this.keys(queue);
    const flat = await this.redis.zrevrange(k.broken, 0, limit - 1, 'WITHSCORES');
    const out: BrokenEntry[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const id = flat[i]!;
      const [why, err] = await Promise.all([
        this.redis.hget(k.brokenWhy, id),
        this.redis.hget(k.job(id), 'e'),
      ]);
      const reason = why ?? (err ? ((JSON.parse(err) as StoredError).message ?? err) : 'unknown');
      out.push({ id, queue, reason, at: Number(flat[i + 1]) });
    }
    return out;
  }

  async readEvents(queue: string, cursor: string, blockMs: number, count = 500): Promise<QueueEvent[]> {
    const k = this.keys(queue);
    let conn = this.redis;
    if (blockMs > 0) {
      let reader = this.readers.get(queue);
      if (!reader) {
        reader = this.redis.duplicate();
        reader.on('error', () => {});
        this.readers.set(queue, reader);
      }
      conn = reader;
    }
    const res =
      blockMs > 0
        ? await conn.xread('COUNT', count, 'BLOCK', String(blockMs), 'STREAMS', k.events, cursor)
        : await conn.xread('COUNT', count, 'STREAMS', k.events, cursor);
    if (!res) return [];
    const out: QueueEvent[] = [];
    for (const [, entries] of res) {
      for (const [entryId, fields] of entries) {
        const f: Record<string, string> = {};
        for (let i = 0; i < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
        const type = f.t ?? '';
        const at = Number(f.at ?? 0);
        // A combined entry (field `js`, see emitMany in lua/include/common.lua): the same
        // transition of several jobs in one script call; one event per job, sharing the cursor.
        if (f.js !== undefined) {
          for (const jobId of f.js.split(',')) out.push({ cursor: entryId, jobId, type, status: f.s, at });
        } else out.push({ cursor: entryId, jobId: f.j ?? '', type, status: f.s, at });
      }
    }
    return out;
  }

  async lastEventCursor(queue: string): Promise<string> {
    const last = await this.redis.xrevrange(this.keys(queue).events, '+', '-', 'COUNT', 1);
    return last[0]?.[0] ?? '0-0';
  }

  async evictionPolicy(): Promise<string | null> {
    try {
      const res = await this.redis.config('GET', 'maxmemory-policy');
      return res[1] ?? null;
    } catch {
      return null; // CONFIG refused (managed Redis, ACL): the caller cannot check
    }
  }

  async registerMachines(machines: MachineInfo[]): Promise<void> {
    if (machines.length === 0) return;
    const key = registryKey(this.prefix);
    const existing = await this.redis.hmget(key, ...machines.map((m) => m.name));
    const args: string[] = [];
    machines.forEach((m, i) => {
      const prev = existing[i] ? (JSON.parse(existing[i]) as MachineInfo) : undefined;
      const versions = [...new Set([...(prev?.versions ?? []), ...m.versions])].sort((a, b) => a - b);
      args.push(m.name, JSON.stringify({ ...m, versions }));
    });
    await this.redis.hset(key, ...args);
  }

  async machines(): Promise<MachineInfo[]> {
    const all = await this.redis.hgetall(registryKey(this.prefix));
    return Object.values(all).map((v) => JSON.parse(v) as MachineInfo);
  }

  async queues(): Promise<string[]> {
    return (await this.redis.smembers(queuesKey(this.prefix))).sort();
  }

  /**
   * How many jobs each index of a queue holds (ZCARD of each, one round trip). `active` holds
   * loading and working jobs; `queued` counts only jobs due now, `delayed` the ones waiting.
   * @example const { queued, active, dead } = await store.counts('default');
   */
  async counts(queue: string): Promise<QueueCounts> {
    const k = this.keys(queue);
    const pipe = this.redis.pipeline();
    for (const name of COUNTED) pipe.zcard(k[name]);
    const res = (await pipe.exec()) ?? [];
    const out = {} as QueueCounts;
    COUNTED.forEach((name, i) => {
      const [err, n] = res[i] ?? [null, 0];
      if (err) throw err;
      out[name] = Number(n);
    });
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.interruptWait();
    for (const r of this.readers.values()) r.disconnect();
    this.readers.clear();
    this.subscriber?.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** The indexes `counts` reports, in display order. */
export const COUNTED = [
  'queued',
  'delayed',
  'active',
  'waiting',
  'done',
  'failed',
  'cancelled',
  'dead',
  'broken',
] as const;
export type QueueCounts = Record<(typeof COUNTED)[number], number>;

function isFinishedIndex(name: IndexName): boolean {
  return name === 'done' || name === 'failed' || name === 'cancelled';
}

/** Log fields hold "<at> <type>" or "<at> <JSON without at>" (see lua/include/common.lua). */
export function decodeLogEntry(text: string): AuditEntry {
  const space = text.indexOf(' ');
  const at = Number(text.slice(0, space));
  const rest = text.slice(space + 1);
  if (rest.startsWith('{')) return { at, ...(JSON.parse(rest) as Omit<AuditEntry, 'at'>) } as AuditEntry;
  return { at, type: rest };
}
