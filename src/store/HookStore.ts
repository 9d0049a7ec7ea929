// What the webhook dispatcher needs of a store (RedisStore.webhookStore, MemoryStore.webhookStore;
// see WebhookDispatcher.ts for what each piece of state is for). One instance serves one queue.
// The writes both backends make alike are in hookWrites.ts; test/webhooks/hookStore/ holds them
// to one suite.

import type { QueueEvent } from './queueEvent.js';

/** A delivery waiting in a chain: everything needed to send it again, unchanged. */
export interface HookMessage {
  /** The webhook-id: the same on every try. */
  id: string;
  url: string;
  secret?: string;
  body: string;
  /** When it was first scheduled (ms), for the give-up age. */
  first: number;
  /** Tries so far. */
  tries: number;
}

/** What the dispatcher needs to know of a job with hooks when one of its events comes. */
export interface HookedJob {
  webhook: { url?: string; stateUrl?: string; secret?: string };
  /** The job's current status and state (JSON), as read now. */
  status: string | null;
  state: string | null;
  /** The last status told to the state receiver. */
  last: string | null;
  /** Receivers that answered 410: 's' state, 'f' final. */
  off: { s: boolean; f: boolean };
}

export interface HookSchedule {
  /** Chain (`<jobId>|s` or `<jobId>|f`) and its new message, in event order. */
  messages: { chain: string; message: HookMessage }[];
  /** The last status told per job (state hooks). */
  last: Map<string, string>;
  /** Jobs whose final event was handled: off the hooked list. */
  finished: string[];
  /** The event-stream position everything before which is handled. */
  cursor: string;
}

export interface HookStore {
  /** Whether any job with hooks is unfinished or any delivery waits (DORMANT check). */
  pending(): Promise<boolean>;
  /** Takes or extends the dispatcher lease of the queue; false when another holds it. */
  lease(owner: string, ms: number): Promise<boolean>;
  release(owner: string): Promise<void>;
  /** The stream position handled so far ('0-0' at first). */
  cursor(): Promise<string>;
  /** Events after `cursor`, blocking up to `blockMs` for the first (own connection). */
  events(cursor: string, count: number, blockMs: number): Promise<QueueEvent[]>;
  /** Which of `ids` are listed as hooked. */
  hooked(ids: string[]): Promise<Set<string>>;
  /** The hooks, status and state of each job (missing: no record, or no hooks). */
  jobs(ids: string[]): Promise<Map<string, HookedJob>>;
  /**
   * Writes new messages, marks their chains due, records the last statuses, takes finished
   * jobs off the hooked list and moves the cursor: all in one atomic step, applied only while
   * `owner` holds the lease (false: it did not, and nothing was written).
   */
  schedule(owner: string, s: HookSchedule, now: number): Promise<boolean>;
  /** Chains due at `now`, oldest due first. */
  due(now: number, limit: number): Promise<string[]>;
  /** A chain's first message, or null when the chain is empty (then it is taken off the due list). */
  head(chain: string): Promise<HookMessage | null>;
  /** Drops the chain's first message; the chain is due again at once for the next. */
  pop(chain: string, now: number): Promise<void>;
  /** Stores the first message's new try count and makes the chain due at `at`. */
  retry(chain: string, message: HookMessage, at: number): Promise<void>;
  /** A 410: no more deliveries of this kind for the job; its chain is dropped. */
  disable(jobId: string, kind: 's' | 'f'): Promise<void>;
  /** The oldest hooked jobs with when they were listed (ms), for the sweep. */
  oldestHooked(limit: number): Promise<{ id: string; at: number }[]>;
  /** A job's status and finish time, or null when it has no record. */
  finishOf(id: string): Promise<{ status: string; finishedAt: number | null } | null>;
  /** Takes jobs off the hooked list (finished, or never created). */
  unhook(ids: string[]): Promise<void>;
  /** The stream's oldest entry position, to tell whether trimming passed the cursor. */
  oldestEvent(): Promise<string | null>;
  close(): void;
}
