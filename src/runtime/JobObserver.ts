// What a supervisor tells observers (metrics, traces) about the jobs it runs: each attempt's
// start, the states its machine settles in, and how it ends. Optional and cheap: with no
// observer, a run pays one undefined check per state change; an observer decides per attempt
// whether to watch it (a tracer without a provider returns nothing).

import type { AnyDefinition } from './registry.js';
import type { AttemptWatch } from './attemptWatch.js';

// Its own file so that ActiveJob can name it without importing this one (which names the
// definitions, whose runners import ActiveJob).
export type { AttemptEnd, AttemptWatch } from './attemptWatch.js';

/**
 * How one webhook delivery try ended: delivered (2xx), retrying (another try is scheduled),
 * failed (no try left), disabled (410: the job's further deliveries of that kind are off),
 * refused (the SSRF guard would not connect). The metrics count by these names. Here, not in
 * src/webhooks: the observers hear of it, and src/runtime is below src/webhooks.
 */
export const DELIVERY_RESULTS = ['delivered', 'retrying', 'failed', 'disabled', 'refused'] as const;
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

/** A claimed job whose attempt is starting. */
export interface AttemptInfo {
  readonly id: string;
  readonly queue: string;
  /** The machine name as stored (may be one this supervisor does not know). */
  readonly machine: string | undefined;
  /** The registered definition of that name, if any: the only source of labels. */
  readonly definition: AnyDefinition | undefined;
  readonly attempt: number;
  /** The lifecycle status it was claimed in ('loading' for a job with a load phase). */
  readonly status: string;
  /** The job's per-job options JSON as stored (carries the enqueue's trace context). */
  readonly options: string | undefined;
}

export interface JobObserver {
  /** An attempt starts; the watch returned (if any) hears its states and its end. */
  attemptStarted(info: AttemptInfo): AttemptWatch | undefined;
  /** The reaper requeued `count` jobs whose lease had passed. */
  leaseRequeued?(count: number): void;
  /** A webhook delivery try of the supervisor's queue ended so (src/webhooks). */
  webhookDelivered?(result: DeliveryResult): void;
}

/** One observer for several (undefined when there are none: no cost on the hot path). */
export function combineObservers(list: readonly (JobObserver | undefined)[]): JobObserver | undefined {
  const all = list.filter((o): o is JobObserver => o !== undefined);
  if (all.length <= 1) return all[0];
  return {
    attemptStarted(info) {
      const watches = all.map((o) => o.attemptStarted(info)).filter((w) => w !== undefined);
      if (watches.length <= 1) return watches[0];
      return {
        state: (v) => watches.forEach((w) => w.state(v)),
        end: (how, final) => watches.forEach((w) => w.end(how, final)),
        trace: () => watches.find((w) => w.trace !== undefined)?.trace?.(),
      };
    },
    leaseRequeued: (count) => all.forEach((o) => o.leaseRequeued?.(count)),
    webhookDelivered: (result) => all.forEach((o) => o.webhookDelivered?.(result)),
  };
}
