// The webhook dispatcher's state on a MemoryStore (src/webhooks/WebhookDispatcher.ts explains it),
// with RedisHookStore's semantics. Each call is one MemoryStore operation, run to its end
// synchronously, so `schedule` (lease check and all its writes) is atomic as a WATCHed MULTI is;
// the writes it shares with Redis are in hookWrites.ts.

import type { QueueEvent } from '../types.js';
import type { HookMessage, HookSchedule, HookStore, HookedJob } from '../HookStore.js';
import { hookedJobOf, writeDisable, writeSchedule, type HookWriter } from '../hookWrites.js';
import type { MemoryContext } from './MemoryContext.js';
import type { QueueState } from './QueueState.js';

/** What the store lends its hook store: atomic operations on one queue, and its event stream. */
export interface MemoryHookHost {
  /** Runs `fn` as one operation of the store; `writes`: the data file is to be written. */
  run<T>(fn: (q: QueueState, ctx: MemoryContext) => T, writes: boolean): Promise<T>;
  readEvents(cursor: string, blockMs: number, count: number): Promise<QueueEvent[]>;
}

export class MemoryHookStore implements HookStore {
  constructor(private readonly host: MemoryHookHost) {}

  pending(): Promise<boolean> {
    return this.host.run((q) => q.hooks.hooked.size > 0 || q.hooks.due.size > 0, false);
  }

  lease(owner: string, ms: number): Promise<boolean> {
    return this.host.run((q) => {
      // Taken when free or lapsed, extended when it is the owner's (SET NX PX, or PEXPIRE).
      const now = performance.now();
      const l = q.hooks.lease;
      if (l && l.until > now && l.owner !== owner) return false;
      q.hooks.lease = { owner, until: now + ms };
      return true;
    }, false);
  }

  release(owner: string): Promise<void> {
    return this.host.run((q) => {
      if (holds(q, owner)) q.hooks.lease = undefined;
    }, false);
  }

  cursor(): Promise<string> {
    return this.host.run((q) => q.hooks.cursor, false);
  }

  events(cursor: string, count: number, blockMs: number): Promise<QueueEvent[]> {
    return this.host.readEvents(cursor, blockMs, count);
  }

  hooked(ids: string[]): Promise<Set<string>> {
    return this.host.run((q) => new Set(ids.filter((id) => q.hooks.hooked.has(id))), false);
  }

  jobs(ids: string[]): Promise<Map<string, HookedJob>> {
    return this.host.run((q, ctx) => {
      const out = new Map<string, HookedJob>();
      for (const id of ids) {
        const j = ctx.job(q, id);
        const job = j && hookedJobOf(j.options, j.status, j.state, q.hooks.liveMeta(id, ctx.now) ?? {});
        if (job) out.set(id, job);
      }
      return out;
    }, false);
  }

  schedule(owner: string, s: HookSchedule, now: number): Promise<boolean> {
    return this.host.run((q, ctx) => {
      if (!holds(q, owner)) return false;
      q.hooks.expireMeta(ctx.now);
      writeSchedule(writer(q, ctx), s, now);
      return true;
    }, true);
  }

  due(now: number, limit: number): Promise<string[]> {
    return this.host.run((q) => {
      // Taken off the heap in order and put back: the lowest `limit`, without sorting them all.
      const taken = q.hooks.due.popUpTo(now, limit);
      for (const e of taken) q.hooks.due.add(e.member, e.score);
      return taken.map((e) => e.member);
    }, false);
  }

  head(chain: string): Promise<HookMessage | null> {
    return this.host.run((q) => {
      const m = q.hooks.chains.get(chain)?.[0];
      if (m) return { ...m };
      q.hooks.due.delete(chain);
      return null;
    }, true);
  }

  pop(chain: string, now: number): Promise<void> {
    return this.host.run((q) => {
      const list = q.hooks.chains.get(chain);
      list?.shift();
      if (list?.length === 0) q.hooks.chains.delete(chain);
      q.hooks.due.add(chain, now);
    }, true);
  }

  retry(chain: string, message: HookMessage, at: number): Promise<void> {
    return this.host.run((q) => {
      const list = q.hooks.chains.get(chain);
      if (list && list.length > 0) list[0] = { ...message };
      if (q.hooks.due.has(chain)) q.hooks.due.add(chain, at);
    }, true);
  }

  disable(jobId: string, kind: 's' | 'f'): Promise<void> {
    return this.host.run((q, ctx) => writeDisable(writer(q, ctx), jobId, kind), true);
  }

  oldestHooked(limit: number): Promise<{ id: string; at: number }[]> {
    return this.host.run(
      (q) => q.hooks.hooked.range(0, limit).map((e) => ({ id: e.member, at: e.score })),
      false,
    );
  }

  finishOf(id: string): Promise<{ status: string; finishedAt: number | null } | null> {
    return this.host.run((q, ctx) => {
      const j = ctx.job(q, id);
      return j ? { status: j.status, finishedAt: j.finishedAt ?? null } : null;
    }, false);
  }

  unhook(ids: string[]): Promise<void> {
    return this.host.run((q) => {
      for (const id of ids) q.hooks.hooked.delete(id);
    }, true);
  }

  oldestEvent(): Promise<string | null> {
    return this.host.run((q) => q.events[0]?.cursor ?? null, false);
  }

  close(): void {
    // Nothing is held open: a blocked events() read ends at its own bound or the store's close.
  }
}

function holds(q: QueueState, owner: string): boolean {
  const l = q.hooks.lease;
  return l !== undefined && l.owner === owner && l.until > performance.now();
}

/** The shared schedule and disable rules (hookWrites.ts) on the queue's maps. */
function writer(q: QueueState, ctx: MemoryContext): HookWriter {
  const h = q.hooks;
  return {
    append: (chain, message) => {
      const list = h.chains.get(chain);
      if (list) list.push({ ...message });
      else h.chains.set(chain, [{ ...message }]);
    },
    dueUnlessListed: (chain, at) => {
      if (!h.due.has(chain)) h.due.add(chain, at);
    },
    dropChain: (chain) => {
      h.chains.delete(chain);
      h.due.delete(chain);
    },
    setMeta: (id, field, value) => {
      const m = h.liveMeta(id, ctx.now);
      if (m) m[field] = value;
      else h.meta.set(id, { [field]: value });
    },
    unhook: (ids) => {
      for (const id of ids) h.hooked.delete(id);
    },
    setCursor: (cursor) => void (h.cursor = cursor),
  };
}
