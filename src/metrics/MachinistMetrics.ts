// Owns Machinist's Prometheus series (seriesNames.ts) in a registry of its own (not prom-client's
// global one, so a process, or a test, may hold several). One object serves a whole process:
// pass it to Supervisor({ observers: [metrics] }) for the job series, to registerMetrics() for
// the HTTP series and GET /metrics, and count webhook deliveries with countWebhookDelivery().

import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AttemptInfo, AttemptWatch, JobObserver } from '../runtime/JobObserver.js';
import type { Store } from '../store/types.js';
import { COUNTED } from '../store/types.js';
import { AttemptMetrics, type AttemptSeries } from './attemptMetrics.js';
import { QueueDepth } from './queueDepth.js';
import {
  HTTP_BUCKETS,
  HTTP_METHODS,
  JOB_BUCKETS,
  SERIES,
  WEBHOOK_RESULTS,
  type WebhookResult,
} from './seriesNames.js';

export interface MachinistMetricsOptions {
  /** The store whose queue depths a scrape reports (machinist_queue_depth); none: not reported. */
  store?: Pick<Store, 'counts' | 'queues'>;
  /** Queues whose depth is reported. Default: the queues supervisors registered. */
  queues?: readonly string[];
  /** How long a read of the queue depths serves scrapes (ms). Default 1000. */
  depthCacheMs?: number;
}

const OTHER = 'other';

/**
 * Machinist's metrics for one process.
 * @example
 * const metrics = new MachinistMetrics({ store });
 * const supervisor = new Supervisor({ store, jobs, observers: [metrics] });
 * registerMetrics(app, { metrics }); // GET /metrics on a Fastify app
 */
export class MachinistMetrics implements JobObserver {
  readonly registry = new Registry();
  private readonly attempt: AttemptSeries;
  private readonly leaseRequeues: Counter;
  private readonly webhooks: Counter<'result'>;
  private readonly httpRequests: Counter<'route' | 'method' | 'code'>;
  private readonly httpDuration: Histogram<'route' | 'method'>;

  constructor(options: MachinistMetricsOptions = {}) {
    const registers = [this.registry];
    this.attempt = {
      jobs: new Counter({
        name: SERIES.jobs,
        help: 'Attempts ended, by how they ended (done, failed, retry, cancelled, parked, requeued, broken, lease-lost)',
        labelNames: ['queue', 'machine', 'status'],
        registers,
      }),
      jobDuration: new Histogram({
        name: SERIES.jobDuration,
        help: 'Attempt duration from claim to its ending write, in seconds',
        labelNames: ['queue', 'machine', 'status'],
        buckets: JOB_BUCKETS,
        registers,
      }),
      transitions: new Counter({
        name: SERIES.stateTransitions,
        help: "State changes of jobs' machines seen by workers",
        labelNames: ['machine', 'from', 'to'],
        registers,
      }),
      dwell: new Histogram({
        name: SERIES.stateDwell,
        help: 'Time a job stayed in a state before leaving it (within one attempt), in seconds',
        labelNames: ['machine', 'state'],
        buckets: JOB_BUCKETS,
        registers,
      }),
    };
    this.leaseRequeues = new Counter({
      name: SERIES.leaseRequeues,
      help: 'Jobs requeued by the reaper because their lease passed',
      registers,
    });
    this.webhooks = new Counter({
      name: SERIES.webhookDeliveries,
      help: 'Webhook delivery attempts, by result',
      labelNames: ['result'],
      registers,
    });
    this.httpRequests = new Counter({
      name: SERIES.httpRequests,
      help: 'HTTP requests answered, by route pattern, method and status code',
      labelNames: ['route', 'method', 'code'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: SERIES.httpDuration,
      help: 'HTTP request duration until the response was sent, in seconds',
      labelNames: ['route', 'method'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    const store = options.store;
    const depth = store ? new QueueDepth(store, options.queues, options.depthCacheMs ?? 1000) : undefined;
    new Gauge({
      name: SERIES.queueDepth,
      help: "Jobs in each of a queue's indexes (queued, delayed, active, waiting, done, failed, cancelled, dead, broken)",
      labelNames: ['queue', 'status'],
      registers,
      async collect() {
        if (!depth) return;
        const counts = await depth.read();
        this.reset();
        for (const [queue, c] of counts) for (const status of COUNTED) this.set({ queue, status }, c[status]);
      },
    });
    // Durability 'replicated' (a RedisStore's replicaShortfalls): writes fewer replicas than
    // asked acknowledged in time. Read from the store on scrape; absent for other stores.
    const replicated = store as { replicaShortfalls?: () => Record<string, number> } | undefined;
    if (typeof replicated?.replicaShortfalls === 'function') {
      const read = replicated.replicaShortfalls.bind(replicated);
      new Counter({
        name: SERIES.replicaShortfalls,
        help: "Durability 'replicated': writes whose WAIT saw fewer replicas than asked, by op (enqueue: rejected REPLICATION_TIMEOUT; commit, drainIngress: kept)",
        labelNames: ['op'],
        registers,
        collect() {
          this.reset();
          for (const [op, n] of Object.entries(read())) this.inc({ op }, n);
        },
      });
    }
  }

  /** The registry's text in the Prometheus exposition format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of text(). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** JobObserver: each attempt a supervisor starts is measured. */
  attemptStarted(info: AttemptInfo): AttemptWatch {
    return new AttemptMetrics(this.attempt, info);
  }

  /** JobObserver: the reaper requeued jobs whose lease passed. */
  leaseRequeued(count: number): void {
    this.leaseRequeues.inc(count);
  }

  /** JobObserver: a supervisor's webhook delivery try ended so. */
  webhookDelivered(result: WebhookResult): void {
    this.countWebhookDelivery(result);
  }

  /** Counts one webhook delivery attempt; a result outside WEBHOOK_RESULTS counts as 'other'. */
  countWebhookDelivery(result: WebhookResult): void {
    this.webhooks.inc({ result: (WEBHOOK_RESULTS as readonly string[]).includes(result) ? result : OTHER });
  }

  /**
   * Counts one HTTP response. `route` MUST be the route's pattern ('/jobs/:id'), never the raw
   * URL; undefined (no route matched) counts as 'unmatched'.
   */
  observeHttpRequest(route: string | undefined, method: string, code: number, seconds: number): void {
    const r = route ?? 'unmatched';
    const m = HTTP_METHODS.has(method) ? method : OTHER;
    this.httpRequests.inc({ route: r, method: m, code: String(code) });
    this.httpDuration.observe({ route: r, method: m }, seconds);
  }
}
