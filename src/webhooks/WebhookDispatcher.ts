// The webhook dispatcher: tells receivers about jobs that asked for it (enqueue option `webhook`,
// docs/webhooks.md), durably, from the queue's event stream. Each Supervisor runs one for its
// queue; at most one per queue is the LEADER at a time.
//
// Where its work comes from. Every status change of every job is already an entry on the
// queue's event stream (lua/include/lcBatch.lua). A job with hooks is listed in `hooked`
// before it is created (enqueueOps.ts); the leader reads the stream from its stored cursor,
// keeps only the events of listed jobs (one ZMSCORE per batch), turns them into messages, and
// in ONE fenced MULTI appends them to per-job chains, marks the chains due and moves the
// cursor. A chain (`<job>|s`: state hooks, `<job>|f`: the final hook) is delivered in order,
// one message at a time; a failed try leaves the message at the head with its try count and
// makes the chain due later (exponential backoff with jitter), so a restart resumes it.
//
// Why a stored cursor and a lease, not a consumer group: a group hands consecutive batches to
// different consumers, so one job's `queued` and `working` could be scheduled out of order.
// One reader per queue keeps every job's hooks in stream order; the lease (hooklease, renewed
// every third of its length) moves to another supervisor when the leader dies, and the new
// leader starts from the cursor, so what the dead one read and did not schedule is read again
// (scheduling is one MULTI with the cursor: never half done, never done twice).
//
// Modes:
//   DORMANT   no job with hooks is unfinished and no delivery waits (EXISTS hooked hookdue
//             says 0): one EXISTS every `idleCheckMs` (30 s), nothing else. A claim of a job
//             with hooks by this supervisor (poke) looks at once.
//   STANDBY   there is work but another supervisor holds the lease: try again every half lease.
//   LEADER    a reader loop (blocking XREAD on a connection of its own, so new events are seen
//             at once and an idle stream costs one command a second) and a delivery loop (due
//             chains, up to `concurrency` at once). Back to DORMANT when nothing is left.
//   STOPPED   stop(): both loops end, deliveries in flight are awaited (their deadline bounds
//             it), and the lease is released so another supervisor takes over at once.
//
// THE DELIVERY-ISOLATION RULE (it must never break): a delivery failure MUST NOT reach the job. Nothing here
// writes a job record or runs in a job's attempt; every error is caught, logged (pino) and
// counted (onDelivery), and the loops go on.
//
// What can be missed (the bound): the stream is capped (RedisStore `eventsMaxLen`, about
// 10,000 entries). Events trimmed before the leader read them (no supervisor of the queue
// running while more than that many entries were written) lose their state hooks; the sweep
// (every `sweepMs`) still finds such a job finished and schedules its final hook, so a final
// hook is lost only if the record itself is gone (retention). A job redriven from the dead
// letters after its final hook gets no hooks for its new run.
//
// Delivery is at least once: a leader that dies after a receiver answered 2xx, before the
// message was popped, leaves it to be sent again by the next leader with the same webhook-id,
// which is what receivers deduplicate on.

import { wireRecord } from '../store/valueCodec.js';
import type { Logger } from 'pino';
import { FINISHED, type QueueEvent } from '../store/types.js';
import type { HookMessage, HookSchedule, HookStore, HookedJob } from '../store/HookStore.js';
import { hookChain } from '../store/hookWrites.js';
import type { DeliveryResult } from '../runtime/JobObserver.js';
import { sendWebhook } from './sendWebhook.js';
import { signWebhook } from './signature.js';
import { MachinistError } from '../errors.js';
import { CODE } from '../errorCodes.js';

export interface WebhookSettings {
  /** Hosts (names or IPs, optionally host:port) let through although not public. Default none. */
  allowHosts?: readonly string[];
  /** One deadline per try (resolve, connect, send, answer). Default 10 s. */
  timeoutMs?: number;
  /** First retry delay, doubled each try up to maxDelayMs, with jitter. Default 2 s, 1 h. */
  retryDelayMs?: number;
  maxDelayMs?: number;
  /** Give up on a message this long after it was first scheduled. Default 24 h. */
  maxAgeMs?: number;
  /** Give up after this many tries. Default 30. */
  maxTries?: number;
  /** Deliveries in flight at once (per queue: only the leader delivers). Default 8. */
  concurrency?: number;
  /** The leader's lease. Default 15 s. */
  leaseMs?: number;
  /** DORMANT's look for work. Default 30 s. */
  idleCheckMs?: number;
  /** How often the leader looks for finished jobs whose final event it never read. Default 60 s. */
  sweepMs?: number;
  /** Called once per try's outcome (metrics: machinist_webhook_deliveries_total{result}). */
  onDelivery?: (result: DeliveryResult) => void;
}

export interface WebhookDispatcherOptions extends WebhookSettings {
  hooks: HookStore;
  queue: string;
  /** This supervisor's worker id: the lease holder's name. */
  owner: string;
  log: Logger;
  /** The job's record as Client.get returns it (the final hook's data), or null. */
  getRecord: (id: string) => Promise<unknown>;
}

const READ_COUNT = 500;
/** A listed job without a record this long after it was listed was never created. */
const DANGLING_MS = 10 * 60_000;

class LeaseLost extends MachinistError {
  constructor() {
    super(CODE.DELIVERY_LEASE_LOST, "the dispatcher's lease on a delivery chain has passed");
  }
}

export class WebhookDispatcher {
  private readonly o: Required<Omit<WebhookDispatcherOptions, 'onDelivery' | 'allowHosts'>> &
    Pick<WebhookDispatcherOptions, 'onDelivery'>;
  private readonly allowHosts: ReadonlySet<string>;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Chains being delivered now (never two tries of one chain at once). */
  private readonly inFlight = new Map<string, Promise<void>>();
  mode: 'dormant' | 'standby' | 'leader' | 'stopped' = 'stopped';

  constructor(options: WebhookDispatcherOptions) {
    this.o = {
      timeoutMs: 10_000,
      retryDelayMs: 2_000,
      maxDelayMs: 3_600_000,
      maxAgeMs: 24 * 3_600_000,
      maxTries: 30,
      concurrency: 8,
      leaseMs: 15_000,
      idleCheckMs: 30_000,
      sweepMs: 60_000,
      ...options,
    };
    this.allowHosts = new Set(
      (options.allowHosts ?? []).map((h) => h.toLowerCase().replace(/^\[(.*)\]$/, '$1')),
    );
    for (const k of [
      'timeoutMs',
      'retryDelayMs',
      'maxDelayMs',
      'maxAgeMs',
      'maxTries',
      'concurrency',
      'leaseMs',
      'idleCheckMs',
      'sweepMs',
    ] as const) {
      const v = this.o[k];
      if (!Number.isFinite(v) || v <= 0)
        throw new TypeError(`webhooks: ${k} must be a number > 0 (got ${v})`);
    }
  }

  start(): void {
    if (this.loop) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** A job with hooks is about: look for work now rather than at the next idle check. */
  poke(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.poke();
    // Bounded: a Redis that does not answer must not hold up a supervisor's stop.
    const loop = this.loop;
    if (loop) await Promise.race([loop, new Promise((r) => setTimeout(r, this.o.timeoutMs + 2_000).unref())]);
    this.loop = undefined;
    this.o.hooks.close();
    this.mode = 'stopped';
  }

  private pause(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async run(): Promise<void> {
    const { hooks, owner, leaseMs, idleCheckMs, log } = this.o;
    while (!this.stopped) {
      try {
        if (!(await hooks.pending())) {
          this.mode = 'dormant';
          await this.pause(idleCheckMs);
          continue;
        }
        if (!(await hooks.lease(owner, leaseMs))) {
          this.mode = 'standby';
          await this.pause(leaseMs / 2);
          continue;
        }
        this.mode = 'leader';
        await this.lead();
      } catch (err) {
        log.error({ err: toError(err), queue: this.o.queue }, 'webhook dispatcher failed; trying again');
        await this.pause(1_000);
      }
    }
    await Promise.allSettled([...this.inFlight.values()]);
    await hooks.release(owner).catch(() => undefined);
  }

  /** LEADER: reads and schedules, delivers, sweeps, renews the lease; returns when idle or lost. */
  private async lead(): Promise<void> {
    const { hooks, owner, leaseMs } = this.o;
    let cursor = await hooks.cursor();
    let leasedAt = Date.now();
    let sweptAt = 0;
    for (;;) {
      if (this.stopped) return;
      if (Date.now() - leasedAt > leaseMs / 3) {
        if (!(await hooks.lease(owner, leaseMs))) return;
        leasedAt = Date.now();
      }
      this.deliverDue().catch((err) =>
        this.o.log.error({ err: toError(err) }, 'webhook delivery pass failed'),
      );
      if (Date.now() - sweptAt > this.o.sweepMs) {
        await this.sweep(cursor);
        sweptAt = Date.now();
      }
      const events = await hooks.events(cursor, READ_COUNT, 1_000);
      if (events.length > 0) {
        try {
          cursor = await this.handle(events);
        } catch (err) {
          if (err instanceof LeaseLost) return;
          throw err;
        }
        continue;
      }
      if (this.inFlight.size === 0 && !(await hooks.pending())) {
        await hooks.release(owner);
        return;
      }
    }
  }

  /** Turns a batch of stream events into scheduled messages; returns the new cursor. */
  private async handle(events: QueueEvent[]): Promise<string> {
    const { hooks } = this.o;
    const cursor = events[events.length - 1]!.cursor;
    const hooked = await hooks.hooked([...new Set(events.map((e) => e.jobId))]);
    const s: HookSchedule = { messages: [], last: new Map(), finished: [], cursor };
    if (hooked.size > 0) {
      const jobs = await hooks.jobs([...hooked]);
      for (const e of events) {
        if (!hooked.has(e.jobId) || s.finished.includes(e.jobId)) continue;
        const j = jobs.get(e.jobId);
        if (!j) {
          s.finished.push(e.jobId); // no record, or no hooks in it: nothing to tell
          continue;
        }
        await this.messagesFor(e.jobId, e, j, s);
      }
    }
    if (!(await hooks.schedule(this.o.owner, s, Date.now()))) throw new LeaseLost();
    if (s.messages.length > 0) this.deliverDue().catch(() => undefined);
    return cursor;
  }

  private async messagesFor(id: string, e: QueueEvent, j: HookedJob, s: HookSchedule): Promise<void> {
    const status = e.status;
    if (!status || e.type === 'cancel-requested') return;
    const now = Date.now();
    const { url, stateUrl, secret } = j.webhook;
    const prev = s.last.get(id) ?? j.last;
    if (status !== prev) {
      s.last.set(id, status);
      if (stateUrl && !j.off.s) {
        let state: unknown = null;
        // The state read now belongs to this event only if the job is still in its status.
        if (j.status === status && j.state) state = parseOr(j.state, null);
        const data = { jobId: id, queue: this.o.queue, status, state, at: e.at };
        s.messages.push({
          chain: hookChain(id, 's'),
          message: message(`msg_${id}_${e.cursor}_s`, stateUrl, secret, 'job.status', data, now),
        });
      }
    }
    if (FINISHED.has(status)) {
      s.finished.push(id);
      if (url && !j.off.f) {
        const got = await this.o.getRecord(id);
        // As the HTTP API shows it: a Date (say) in the value codec's envelope, not its toJSON.
        const record = got && typeof got === 'object' ? wireRecord(got) : got;
        if (record) {
          s.messages.push({
            chain: hookChain(id, 'f'),
            message: message(`msg_${id}_${e.cursor}_f`, url, secret, 'job.finished', record, now),
          });
        }
      }
    }
  }

  /**
   * Finds finished jobs whose final event the leader never read (trimmed from the stream) and
   * schedules their final hook; drops listings whose job was never created.
   */
  private async sweep(cursor: string): Promise<void> {
    const { hooks, log } = this.o;
    const cursorMs = Number(cursor.split('-')[0]);
    const oldest = await hooks.oldestEvent();
    if (oldest && cursor !== '0-0' && compareIds(oldest, cursor) > 0)
      log.warn(
        { queue: this.o.queue, cursor, oldest },
        'webhook: events were trimmed before they were read; state hooks were missed',
      );
    const dangling: string[] = [];
    for (const { id, at } of await hooks.oldestHooked(200)) {
      const f = await hooks.finishOf(id);
      if (!f) {
        if (at < Date.now() - DANGLING_MS) dangling.push(id);
        continue;
      }
      if (!FINISHED.has(f.status) || f.finishedAt === null || f.finishedAt >= cursorMs - 60_000) continue;
      const j = (await hooks.jobs([id])).get(id);
      const s: HookSchedule = { messages: [], last: new Map(), finished: [id], cursor };
      if (j)
        await this.messagesFor(
          id,
          { cursor: `${f.finishedAt}-0`, jobId: id, type: f.status, status: f.status, at: f.finishedAt },
          j,
          s,
        );
      if (!(await hooks.schedule(this.o.owner, s, Date.now()))) return;
    }
    await hooks.unhook(dangling);
  }

  /**
   * Starts a try for each due chain not in flight, up to `concurrency`. Not a p-limit pool: a
   * pool queues the work it cannot start yet, and a queued chain would be tried later than it
   * was read due (its head may have changed, another leader may own it by then); this asks the
   * store for no more chains than it can start now, keyed by chain so that one chain is never
   * tried twice at once, and asks again as each try ends.
   */
  private async deliverDue(): Promise<void> {
    const free = this.o.concurrency - this.inFlight.size;
    if (free <= 0 || this.stopped) return;
    const due = await this.o.hooks.due(Date.now(), free + this.inFlight.size);
    for (const chain of due) {
      if (this.inFlight.size >= this.o.concurrency) break;
      if (this.inFlight.has(chain)) continue;
      const p = this.deliver(chain)
        .catch((err) =>
          this.o.log.error({ err: toError(err), chain }, 'webhook delivery failed unexpectedly'),
        )
        .finally(() => {
          this.inFlight.delete(chain);
          // The chain's next message (or another chain) may be due now.
          if (!this.stopped) this.deliverDue().catch(() => undefined);
        });
      this.inFlight.set(chain, p);
    }
  }

  private async deliver(chain: string): Promise<void> {
    const { hooks, log } = this.o;
    const m = await hooks.head(chain);
    if (!m) return;
    const jobId = chain.slice(0, -2);
    const kind = chain.endsWith('|f') ? 'f' : 's';
    const ts = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'machinist-webhooks',
      'webhook-id': m.id,
      'webhook-timestamp': String(ts),
    };
    if (m.secret) headers['webhook-signature'] = signWebhook(m.secret, m.id, ts, m.body);
    const out = await sendWebhook(m.url, {
      headers,
      body: m.body,
      allowHosts: this.allowHosts,
      timeoutMs: this.o.timeoutMs,
    });
    const where = { queue: this.o.queue, jobId, webhookId: m.id, host: hostOf(m.url) };
    switch (out.result) {
      case 'delivered':
        await hooks.pop(chain, Date.now());
        this.count('delivered');
        return;
      case 'gone':
        await hooks.disable(jobId, kind);
        log.info(where, 'webhook receiver answered 410: no more deliveries of this kind for the job');
        this.count('disabled');
        return;
      case 'refused':
        await hooks.pop(chain, Date.now());
        log.warn({ ...where, reason: out.reason }, 'webhook refused (not sent)');
        this.count('refused');
        return;
      case 'failed': {
        const tries = m.tries + 1;
        if (tries >= this.o.maxTries || Date.now() - m.first >= this.o.maxAgeMs) {
          await hooks.pop(chain, Date.now());
          log.warn({ ...where, tries, reason: out.reason }, 'webhook delivery given up');
          this.count('failed');
          return;
        }
        const delay = Math.min(this.o.maxDelayMs, this.o.retryDelayMs * 2 ** (tries - 1));
        const at = Date.now() + Math.round(delay * (0.5 + Math.random() / 2));
        await hooks.retry(chain, { ...m, tries }, at);
        log.info({ ...where, tries, reason: out.reason }, 'webhook delivery failed; will retry');
        this.count('retrying');
      }
    }
  }

  /** A listener that throws must not stop deliveries. */
  private count(result: DeliveryResult): void {
    try {
      this.o.onDelivery?.(result);
    } catch (err) {
      this.o.log.error({ err: toError(err) }, 'webhook onDelivery listener threw');
    }
  }
}

function message(
  id: string,
  url: string,
  secret: string | undefined,
  type: string,
  data: unknown,
  now: number,
): HookMessage {
  const body = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
  return secret ? { id, url, secret, body, first: now, tries: 0 } : { id, url, body, first: now, tries: 0 };
}

function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/** Stream ids compared as (ms, seq). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || as - bs;
}

/** Only the host goes in logs: a URL's path or query may carry a token. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
