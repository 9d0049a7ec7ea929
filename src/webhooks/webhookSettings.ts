// The webhook dispatcher's settings (Supervisor option `webhooks`): what each bounds, its
// default, and the check that refuses a bad one when the dispatcher is built.

import type { DeliveryResult } from '../runtime/JobObserver.js';

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

/** The numeric settings, each a number > 0. */
type Bounds = Required<Omit<WebhookSettings, 'onDelivery' | 'allowHosts'>>;

export const WEBHOOK_DEFAULTS: Bounds = {
  timeoutMs: 10_000,
  retryDelayMs: 2_000,
  maxDelayMs: 3_600_000,
  maxAgeMs: 24 * 3_600_000,
  maxTries: 30,
  concurrency: 8,
  leaseMs: 15_000,
  idleCheckMs: 30_000,
  sweepMs: 60_000,
};

/** Throws a TypeError naming the first numeric setting that is not a number > 0. */
export function checkWebhookBounds(settings: Bounds): void {
  for (const k of Object.keys(WEBHOOK_DEFAULTS) as (keyof Bounds)[]) {
    const v = settings[k];
    if (!Number.isFinite(v) || v <= 0) throw new TypeError(`webhooks: ${k} must be a number > 0 (got ${v})`);
  }
}

/** `allowHosts` as sendWebhook matches it: lower case, an IPv6 address without its brackets. */
export function allowHostSet(allowHosts: readonly string[] | undefined): ReadonlySet<string> {
  return new Set((allowHosts ?? []).map((h) => h.toLowerCase().replace(/^\[(.*)\]$/, '$1')));
}
