// The leader's deliveries: each due chain's head message sent (signed when the job's hook has a
// secret), then popped, retried later with backoff and jitter, given up on, or its kind of hook
// turned off for the job (410 Gone). Never two tries of one chain at once, at most `concurrency`
// tries in flight. THE DELIVERY-ISOLATION RULE (WebhookDispatcher.ts) holds here: a failure
// never reaches the job; every try's error is caught, logged and counted, and deliveries go on.

import type { Logger } from 'pino';
import type { HookStore } from '../store/HookStore.js';
import type { DeliveryResult } from '../runtime/JobObserver.js';
import { sendWebhook } from './sendWebhook.js';
import { signWebhook } from './signature.js';
import { toError } from '../errors.js';

export interface DeliverySettings {
  hooks: HookStore;
  queue: string;
  log: Logger;
  timeoutMs: number;
  retryDelayMs: number;
  maxDelayMs: number;
  maxAgeMs: number;
  maxTries: number;
  concurrency: number;
  onDelivery?: (result: DeliveryResult) => void;
}

export class HookDeliveries {
  /** Chains being delivered now (never two tries of one chain at once). */
  private readonly inFlight = new Map<string, Promise<void>>();

  /** `stopped`: true once the dispatcher stops; no try starts after that. */
  constructor(
    private readonly o: DeliverySettings,
    private readonly allowHosts: ReadonlySet<string>,
    private readonly stopped: () => boolean,
  ) {}

  /** Tries in flight now. */
  get size(): number {
    return this.inFlight.size;
  }

  /** Resolves once every try in flight has ended (each is bounded by its deadline). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * Starts a try for each due chain not in flight, up to `concurrency`. Not a p-limit pool: a
   * pool queues the work it cannot start yet, and a queued chain would be tried later than it
   * was read due (its head may have changed, another leader may own it by then); this asks the
   * store for no more chains than it can start now, keyed by chain so that one chain is never
   * tried twice at once, and asks again as each try ends.
   */
  async deliverDue(): Promise<void> {
    const free = this.o.concurrency - this.inFlight.size;
    if (free <= 0 || this.stopped()) return;
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
          if (!this.stopped()) this.deliverDue().catch(() => undefined);
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

/** Only the host goes in logs: a URL's path or query may carry a token. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}
