// Live queue events for the API's server-sent streams: ONE poller per queue, however many
// clients follow it. A poller blocks on the queue's event stream (Store.readEvents, a
// connection per queue held while it blocks, not one per client), hands each batch to every
// subscriber, and stops once its last subscriber has gone (within one block, `blockMs`). So
// 100 open streams on one queue cost one blocking connection and one XREAD at a time.
//
// Resuming (`Last-Event-ID`): a subscriber joins the poller first, taking the point it has read
// to (`start`); everything after it comes live. What lies between the client's last id and
// `start` is read once, without blocking, as the subscriber's `replay`; live batches arriving
// meanwhile wait in the subscriber's buffer. So nothing is lost and nothing comes twice.

import { RedisUnavailableError } from '../errors.js';
import type { QueueEvent, EventLog } from '../store/types.js';

/** Orders stream ids ("<ms>-<seq>"). */
export function compareCursors(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

export const CURSOR = /^[0-9]{1,20}(-[0-9]{1,20})?$/;

export interface Subscription {
  /** The stream position live delivery starts after. */
  readonly start: string;
  /** Events between the subscriber's `from` and `start`, oldest first (empty without `from`). */
  readonly replay: QueueEvent[];
  /** Starts live delivery: first what arrived since `start`, then each batch as it comes. */
  listen(onEvents: (events: QueueEvent[]) => void): void;
  close(): void;
}

interface Subscriber {
  buffer: QueueEvent[] | null;
  deliver: ((events: QueueEvent[]) => void) | null;
}

interface QueueFeed {
  cursor: string;
  ready: Promise<void>;
  subs: Set<Subscriber>;
  running: boolean;
}

export interface EventHubOptions {
  /** How long one poll blocks; also how long a poller outlives its last subscriber. */
  blockMs?: number;
  /** Bound on the reads a subscribe makes before answering (else REDIS_UNAVAILABLE). */
  readTimeoutMs?: number;
  /** Called when a poll fails (it is tried again). */
  onError?: (err: unknown, queue: string) => void;
}

const REPLAY_PAGE = 500;
const RETRY_AFTER_ERROR_MS = 500;

export class EventHub {
  private readonly feeds = new Map<string, QueueFeed>();
  private readonly blockMs: number;
  private readonly readTimeoutMs: number;
  private closed = false;

  constructor(
    private readonly store: EventLog,
    private readonly options: EventHubOptions = {},
  ) {
    this.blockMs = options.blockMs ?? 1000;
    this.readTimeoutMs = options.readTimeoutMs ?? 1000;
  }

  /** Queues being polled now (for tests and diagnostics). */
  get polling(): string[] {
    return [...this.feeds.keys()];
  }

  /**
   * Follows the queue's events after `from` (exclusive), or from now. Rejects with
   * REDIS_UNAVAILABLE when the starting reads do not answer within `readTimeoutMs`.
   */
  async subscribe(queue: string, from?: string): Promise<Subscription> {
    const feed = this.feed(queue);
    await feed.ready;
    const sub: Subscriber = { buffer: [], deliver: null };
    feed.subs.add(sub);
    const start = feed.cursor;
    if (!feed.running) this.run(queue, feed);
    const close = () => {
      feed.subs.delete(sub);
      sub.deliver = null;
      sub.buffer = null;
    };
    let replay: QueueEvent[] = [];
    try {
      if (from !== undefined && compareCursors(from, start) < 0)
        replay = await this.readBetween(queue, from, start);
    } catch (err) {
      close();
      throw err;
    }
    return {
      start,
      replay,
      listen: (onEvents) => {
        if (!sub.buffer) return; // closed
        const waiting = sub.buffer;
        sub.buffer = null;
        sub.deliver = onEvents;
        if (waiting.length > 0) onEvents(waiting);
      },
      close,
    };
  }

  /**
   * Every event after `from` (exclusive) up to the stream's end now, read in pages without
   * blocking and within `readTimeoutMs` a page (else REDIS_UNAVAILABLE).
   */
  readAfter(queue: string, from: string): Promise<QueueEvent[]> {
    return this.readBetween(queue, from);
  }

  /** Stops every poller (each ends within one block). */
  close(): void {
    this.closed = true;
    for (const feed of this.feeds.values()) feed.subs.clear();
    this.feeds.clear();
  }

  private feed(queue: string): QueueFeed {
    let feed = this.feeds.get(queue);
    if (!feed) {
      const created: QueueFeed = { cursor: '0-0', ready: Promise.resolve(), subs: new Set(), running: false };
      created.ready = this.bounded(this.store.lastEventCursor(queue), queue).then(
        (cursor) => void (created.cursor = cursor),
        (err: unknown) => {
          // A later subscribe tries afresh.
          if (this.feeds.get(queue) === created) this.feeds.delete(queue);
          throw err;
        },
      );
      this.feeds.set(queue, (feed = created));
    }
    return feed;
  }

  private run(queue: string, feed: QueueFeed): void {
    feed.running = true;
    void (async () => {
      while (!this.closed && feed.subs.size > 0) {
        let events: QueueEvent[];
        try {
          events = await this.store.readEvents(queue, feed.cursor, this.blockMs);
        } catch (err) {
          this.options.onError?.(err, queue);
          await new Promise((r) => setTimeout(r, RETRY_AFTER_ERROR_MS));
          continue;
        }
        if (events.length === 0) continue;
        feed.cursor = events[events.length - 1]!.cursor;
        for (const sub of feed.subs) {
          if (sub.buffer) sub.buffer.push(...events);
          else sub.deliver?.(events);
        }
      }
      feed.running = false;
      // Same tick as the check above: no subscriber can have joined in between.
      if (this.feeds.get(queue) === feed) this.feeds.delete(queue);
    })();
  }

  /** Events after `from` up to and including `until` (or the end), read in pages without blocking. */
  private async readBetween(queue: string, from: string, until?: string): Promise<QueueEvent[]> {
    const out: QueueEvent[] = [];
    let cursor = from;
    for (;;) {
      const page = await this.bounded(this.store.readEvents(queue, cursor, 0, REPLAY_PAGE), queue);
      for (const e of page) {
        if (until !== undefined && compareCursors(e.cursor, until) > 0) return out;
        out.push(e);
      }
      if (page.length < REPLAY_PAGE) return out;
      cursor = page[page.length - 1]!.cursor;
    }
  }

  /** These reads go over the store's patient connection: the API does not wait out an outage. */
  private bounded<T>(p: Promise<T>, queue: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new RedisUnavailableError(
              'redis',
              `Redis did not answer the event stream read within ${this.readTimeoutMs} ms`,
              {
                ids: { queue },
              },
            ),
          ),
        this.readTimeoutMs,
      );
    });
    p.catch(() => undefined);
    return Promise.race([p, limit]).finally(() => clearTimeout(timer));
  }
}
