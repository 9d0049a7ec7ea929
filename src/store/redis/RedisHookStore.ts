// The webhook dispatcher's state on Redis (src/webhooks/WebhookDispatcher.ts explains it). Every
// key is under the queue's hash tag; the one multi-key change (schedule) is one MULTI, fenced
// by WATCH on the lease so a dispatcher whose lease passed writes nothing.

import type { ChainableCommander } from 'ioredis';
import { duplicateClient, type RedisClient } from './redisClient.js';
import type { QueueKeys } from '../keys.js';
import type { QueueEvent } from '../types.js';
import type { HookMessage, HookSchedule, HookStore, HookedJob } from '../HookStore.js';
import { hookedJobOf, writeDisable, writeSchedule, type HookWriter } from '../hookWrites.js';
import { decodeStreamEntries } from './decodeEvents.js';
import { F } from '../recordSchema.js';

export class RedisHookStore implements HookStore {
  private reader: RedisClient | undefined;
  /** A connection of its own: a WATCH belongs to a connection, and an EXEC clears them all. */
  private readonly redis: RedisClient;
  /** WATCH sections run one at a time on it, for the same reason. */
  private watching: Promise<unknown> = Promise.resolve();

  constructor(
    shared: RedisClient,
    private readonly k: QueueKeys,
  ) {
    this.redis = duplicateClient(shared);
    this.redis.on('error', () => {});
  }

  private exclusive<T>(section: () => Promise<T>): Promise<T> {
    const run = this.watching.then(section, section);
    this.watching = run.catch(() => undefined);
    return run;
  }

  /**
   * Drops this connection's WATCH of `key`. Not UNWATCH: it names no key, so a cluster client
   * sends it to any node, and the WATCH stays on the one that serves `key` (to fail a later EXEC
   * there). An EXEC on that node clears it the same way.
   */
  private async unwatch(key: string): Promise<void> {
    await this.redis.multi().exists(key).exec();
  }

  async pending(): Promise<boolean> {
    return (await this.redis.exists(this.k.hooked, this.k.hookDue)) > 0;
  }

  lease(owner: string, ms: number): Promise<boolean> {
    return this.exclusive(() => this.leaseNow(owner, ms));
  }

  private async leaseNow(owner: string, ms: number): Promise<boolean> {
    if ((await this.redis.set(this.k.hookLease, owner, 'PX', ms, 'NX')) === 'OK') return true;
    // Extend it only if it is still ours: WATCH makes the PEXPIRE fail if it changed hands.
    await this.redis.watch(this.k.hookLease);
    if ((await this.redis.get(this.k.hookLease)) !== owner) {
      await this.unwatch(this.k.hookLease);
      return false;
    }
    const res = await this.redis.multi().pexpire(this.k.hookLease, ms).exec();
    return res !== null;
  }

  release(owner: string): Promise<void> {
    return this.exclusive(() => this.releaseNow(owner));
  }

  private async releaseNow(owner: string): Promise<void> {
    await this.redis.watch(this.k.hookLease);
    if ((await this.redis.get(this.k.hookLease)) !== owner)
      return void (await this.unwatch(this.k.hookLease));
    await this.redis.multi().del(this.k.hookLease).exec();
  }

  async cursor(): Promise<string> {
    return (await this.redis.get(this.k.hookCursor)) ?? '0-0';
  }

  async events(cursor: string, count: number, blockMs: number): Promise<QueueEvent[]> {
    if (!this.reader) {
      this.reader = duplicateClient(this.redis);
      this.reader.on('error', () => {});
    }
    const res =
      blockMs > 0
        ? await this.reader.xread('COUNT', count, 'BLOCK', String(blockMs), 'STREAMS', this.k.events, cursor)
        : await this.redis.xread('COUNT', count, 'STREAMS', this.k.events, cursor);
    return res ? decodeStreamEntries(res) : [];
  }

  async hooked(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const scores = (await this.redis.call('ZMSCORE', this.k.hooked, ...ids)) as (string | null)[];
    return new Set(ids.filter((_, i) => scores[i] !== null));
  }

  async jobs(ids: string[]): Promise<Map<string, HookedJob>> {
    const p = this.redis.pipeline();
    for (const id of ids) {
      p.hmget(this.k.job(id), F.options, F.status, F.state);
      p.hmget(this.k.hookMeta(id), 'last', 'offs', 'offf');
    }
    const res = (await p.exec()) ?? [];
    const out = new Map<string, HookedJob>();
    ids.forEach((id, i) => {
      const [opt, st, s] = res[i * 2]![1] as (string | null)[];
      const [last, offs, offf] = res[i * 2 + 1]![1] as (string | null)[];
      const job = hookedJobOf(opt, st, s, { last, offs, offf });
      if (job) out.set(id, job);
    });
    return out;
  }

  schedule(owner: string, s: HookSchedule, now: number): Promise<boolean> {
    return this.exclusive(() => this.scheduleNow(owner, s, now));
  }

  private async scheduleNow(owner: string, s: HookSchedule, now: number): Promise<boolean> {
    await this.redis.watch(this.k.hookLease);
    if ((await this.redis.get(this.k.hookLease)) !== owner) {
      await this.unwatch(this.k.hookLease);
      return false;
    }
    const m = this.redis.multi();
    writeSchedule(this.writer(m), s, now);
    return (await m.exec()) !== null;
  }

  async due(now: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.k.hookDue, '-inf', now, 'LIMIT', 0, limit);
  }

  async head(chain: string): Promise<HookMessage | null> {
    const key = this.k.hookChain(chain);
    const text = await this.redis.lindex(key, 0);
    if (text !== null) return JSON.parse(text) as HookMessage;
    // Empty: off the due list, unless a message came meanwhile (WATCH).
    const again = await this.exclusive(async () => {
      await this.redis.watch(key);
      if ((await this.redis.llen(key)) > 0) {
        await this.unwatch(key);
        return true;
      }
      return (await this.redis.multi().zrem(this.k.hookDue, chain).exec()) === null;
    });
    return again ? this.head(chain) : null;
  }

  async pop(chain: string, now: number): Promise<void> {
    await this.redis.multi().lpop(this.k.hookChain(chain)).zadd(this.k.hookDue, now, chain).exec();
  }

  async retry(chain: string, message: HookMessage, at: number): Promise<void> {
    await this.redis
      .multi()
      .lset(this.k.hookChain(chain), 0, JSON.stringify(message))
      .zadd(this.k.hookDue, 'XX', at, chain)
      .exec();
  }

  async disable(jobId: string, kind: 's' | 'f'): Promise<void> {
    const m = this.redis.multi();
    writeDisable(this.writer(m), jobId, kind);
    await m.exec();
  }

  /** The shared schedule and disable rules (hookWrites.ts), as commands queued on a MULTI. */
  private writer(m: ChainableCommander): HookWriter {
    const k = this.k;
    return {
      append: (chain, message) => void m.rpush(k.hookChain(chain), JSON.stringify(message)),
      dueUnlessListed: (chain, at) => void m.zadd(k.hookDue, 'NX', at, chain),
      dropChain: (chain) => void m.del(k.hookChain(chain)).zrem(k.hookDue, chain),
      setMeta: (id, field, value) => void m.hset(k.hookMeta(id), field, value),
      unhook: (ids) => void m.zrem(k.hooked, ...ids),
      setCursor: (cursor) => void m.set(k.hookCursor, cursor),
    };
  }

  async oldestHooked(limit: number): Promise<{ id: string; at: number }[]> {
    const flat = await this.redis.zrange(this.k.hooked, '0', String(limit - 1), 'WITHSCORES');
    const out: { id: string; at: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ id: flat[i]!, at: Number(flat[i + 1]) });
    return out;
  }

  async finishOf(id: string): Promise<{ status: string; finishedAt: number | null } | null> {
    const [st, fa] = await this.redis.hmget(this.k.job(id), F.status, F.finishedAt);
    return st ? { status: st, finishedAt: fa ? Number(fa) : null } : null;
  }

  async unhook(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.redis.zrem(this.k.hooked, ...ids);
  }

  async oldestEvent(): Promise<string | null> {
    const first = await this.redis.xrange(this.k.events, '-', '+', 'COUNT', 1);
    return first[0]?.[0] ?? null;
  }

  close(): void {
    this.reader?.disconnect();
    this.reader = undefined;
    this.redis.disconnect();
  }
}
