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
// The pieces: webhookSettings.ts (settings, defaults), hookMessages.ts (an event's messages),
// HookDeliveries.ts (the delivery loop's tries), sweepMissedFinals.ts (the sweep).
//
// Delivery is at least once: a leader that dies after a receiver answered 2xx, before the
// message was popped, leaves it to be sent again by the next leader with the same webhook-id,
// which is what receivers deduplicate on.

import type { Logger } from 'pino';
import type { QueueEvent } from '../store/types.js';
import type { HookSchedule, HookStore } from '../store/HookStore.js';
import { MachinistError, toError } from '../errors.js';
import { CODE } from '../errorCodes.js';
import {
  WEBHOOK_DEFAULTS,
  allowHostSet,
  checkWebhookBounds,
  type WebhookSettings,
} from './webhookSettings.js';
import { messagesFor } from './hookMessages.js';
import { HookDeliveries } from './HookDeliveries.js';
import { sweepMissedFinals } from './sweepMissedFinals.js';

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

class LeaseLost extends MachinistError {
  constructor() {
    super(CODE.DELIVERY_LEASE_LOST, "the dispatcher's lease on a delivery chain has passed");
  }
}

export class WebhookDispatcher {
  private readonly o: Required<Omit<WebhookDispatcherOptions, 'onDelivery' | 'allowHosts'>> &
    Pick<WebhookDispatcherOptions, 'onDelivery'>;
  private readonly deliveries: HookDeliveries;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  mode: 'dormant' | 'standby' | 'leader' | 'stopped' = 'stopped';

  constructor(options: WebhookDispatcherOptions) {
    this.o = { ...WEBHOOK_DEFAULTS, ...options };
    const allowHosts = allowHostSet(options.allowHosts);
    checkWebhookBounds(this.o);
    this.deliveries = new HookDeliveries(this.o, allowHosts, () => this.stopped);
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
    await this.deliveries.settled();
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
      this.deliveries
        .deliverDue()
        .catch((err) => this.o.log.error({ err: toError(err) }, 'webhook delivery pass failed'));
      if (Date.now() - sweptAt > this.o.sweepMs) {
        await sweepMissedFinals(this.o, cursor);
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
      if (this.deliveries.size === 0 && !(await hooks.pending())) {
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
        await messagesFor(this.o, e.jobId, e, j, s);
      }
    }
    if (!(await hooks.schedule(this.o.owner, s, Date.now()))) throw new LeaseLost();
    if (s.messages.length > 0) this.deliveries.deliverDue().catch(() => undefined);
    return cursor;
  }
}
