// One queue's webhook dispatcher state in a MemoryStore: what RedisStore keeps in the queue's
// hooked, hookdue, hookq:<chain>, hookmeta:<id>, hookcursor and hooklease keys
// (src/webhooks/WebhookDispatcher.ts says what each is for).
//
// Kept in the data file, all but the lease: a job with hooks that is still unfinished after a
// restart must still be followed (it is on the hooked list), and a delivery that was waiting for
// a retry is still owed to its receiver (Redis keeps both across a restart too). The lease
// belongs to a dispatcher of this process, which is gone after a restart, as a job's lease is.

import type { HookMessage } from '../HookStore.js';
import type { HookMetaField } from '../hookWrites.js';
import { ZSet } from './ZSet.js';

/** A job's hook record (hookmeta:<id>); `expiresAt` in store time, as PEXPIRE on Redis. */
export type HookMeta = Partial<Record<HookMetaField, string>> & { expiresAt?: number };

export interface HookStateJson {
  hooked: [string, number][];
  due: [string, number][];
  chains: [string, HookMessage[]][];
  meta: [string, HookMeta][];
  cursor: string;
}

export class HookState {
  /** Unfinished jobs with hooks, by when they were listed (ms). */
  hooked = new ZSet();
  /** Chains with a delivery due, by due time (ms, the dispatcher's clock). */
  due = new ZSet();
  /** Each chain's messages, the next to send first. */
  readonly chains = new Map<string, HookMessage[]>();
  readonly meta = new Map<string, HookMeta>();
  /** The hook records with an expiry, by it: retention drops them without a scan. */
  metaExpiry = new ZSet();
  /** The event-stream position handled so far. */
  cursor = '0-0';
  /** The dispatcher lease: its holder and until when (performance.now()). Not kept in the file. */
  lease: { owner: string; until: number } | undefined;

  /** Lists a job with hooks for the dispatcher; a job listed already keeps its time (ZADD NX). */
  list(id: string, now: number): void {
    if (!this.hooked.has(id)) this.hooked.add(id, now);
  }

  /** A job's hook record, unless it has expired by `now`. */
  liveMeta(id: string, now: number): HookMeta | undefined {
    const m = this.meta.get(id);
    if (m?.expiresAt !== undefined && m.expiresAt <= now) {
      this.meta.delete(id);
      this.metaExpiry.delete(id);
      return undefined;
    }
    return m;
  }

  /** Drops hook records past their expiry (a few at a time, as Redis expires keys). */
  expireMeta(now: number): void {
    for (const { member } of this.metaExpiry.popUpTo(now, 100)) this.meta.delete(member);
  }

  toJSON(): HookStateJson {
    return {
      hooked: this.hooked.entries(),
      due: this.due.entries(),
      chains: [...this.chains],
      meta: [...this.meta],
      cursor: this.cursor,
    };
  }

  static fromJSON(doc: HookStateJson | undefined): HookState {
    const h = new HookState();
    if (!doc) return h; // a data file written before webhooks were kept
    for (const [m, s] of doc.hooked) h.hooked.add(m, s);
    for (const [m, s] of doc.due) h.due.add(m, s);
    for (const [c, list] of doc.chains) h.chains.set(c, list);
    for (const [id, meta] of doc.meta) {
      h.meta.set(id, meta);
      if (meta.expiresAt !== undefined) h.metaExpiry.add(id, meta.expiresAt);
    }
    h.cursor = doc.cursor;
    return h;
  }
}
