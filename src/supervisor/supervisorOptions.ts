// A supervisor's options, their defaults and their checks: resolveSupervisorOptions() turns the
// options a user passes into the settings a Supervisor runs with, or throws a TypeError naming
// the option that is wrong, before anything is built.

import { hostname } from 'node:os';
import { ulidFactory } from '../runtime/ulids.js';
import { pino, type Logger } from 'pino';
import { hasWebhooks, type Store } from '../store/types.js';
import type { AnyDefinition } from '../runtime/registry.js';
import { assertQueueName } from '../store/keys.js';
import { DEFAULT_MAX_PAYLOAD_BYTES } from '../runtime/inputLimits.js';
import type { WebhookSettings } from '../webhooks/webhookSettings.js';
import type { JobObserver } from '../runtime/JobObserver.js';
import type { QueueOrder } from './ClaimShare.js';

/** A queue a supervisor serves, with its share of the claims (SupervisorOptions.queues). */
export interface ServedQueue {
  name: string;
  /** Its share of the claims while several queues have work (queueOrder 'weighted'). Default 1. */
  weight?: number;
}

export interface SupervisorOptions {
  store: Store;
  jobs: readonly AnyDefinition[];
  /** The one queue served (default 'default'); or name several with `queues`. */
  queue?: string;
  /**
   * The queues served, instead of `queue`: names, or `{ name, weight }`. Concurrency is shared
   * by all of them; an empty queue costs nothing while others have work, and the wait for work
   * is one blocking connection however many queues (docs/production.md, Several queues).
   * @example new Supervisor({ store, jobs, queues: [{ name: 'mail', weight: 3 }, 'reports'] })
   */
  queues?: readonly (string | ServedQueue)[];
  /**
   * How the queues share the claims when several have work: 'weighted' (default: by weight,
   * each queue's jobs claimed in proportion to its weight, round robin at equal weights) or
   * 'strict' (in the order given: a queue is claimed from only while every earlier one is
   * empty; weights are then refused).
   */
  queueOrder?: QueueOrder;
  /** Jobs run at once, over all the queues served. Default 10. */
  concurrency?: number;
  /**
   * THE EARLY LEASE (docs/architecture.md, "Timers and the early lease"): a claim also takes
   * parked pipelines whose timer is due within this many ms, before it is due, so each is
   * restored and waiting in memory when its timer fires (only its ending is left to write then:
   * many timers due at once resume at the rate of their endings). A held job is claimed (its
   * record says `working`) and leased from its early claim; it takes no `concurrency` slot until
   * its timer is due. Only parked jobs' timers (never a retry's backoff or a delayed enqueue),
   * only jobs with no concurrency key and no parent on the queue, on queues with no total, no
   * throttle, no key or machine gate. Default 0: off (what a record says and when a lease is
   * taken stay as they were: a parked job reads `waiting` until its timer is due). A few
   * seconds suit a burst of timers due at once: 100k due at once took ~5 s of claims to hold
   * (bench/RESULTS.md, workload 15).
   */
  leadMs?: number;
  /**
   * The most jobs this supervisor holds at once under THE EARLY LEASE (waiting in memory for
   * their timer, over all the queues served), apart from `concurrency` and the queues' totals.
   * Default 1,000: each held run is a restored machine in memory (~a few KB) and a lease that
   * needs no heartbeat until its timer is due; a burst of 100k over 4 processes wants ~25k each.
   */
  holdMax?: number;
  /** Lease length; a job whose lease is not extended in time is requeued. Default 30 s. */
  leaseMs?: number;
  /** How often leases are extended. Default 10 s (must be below leaseMs). */
  heartbeatMs?: number;
  /**
   * The longest wait between looks for expired leases. Default 5 s. (The reaper also wakes when
   * the earliest running lease passes, so a dead worker's jobs are requeued at their lease's end.)
   */
  reaperIntervalMs?: number;
  /** Lease requeues a job may have before it fails with LEASE_EXPIRED. Default 5. */
  maxLeaseRequeues?: number;
  /** Longest idle block before looking again. Default 5 s. */
  idleWaitMs?: number;
  workerId?: string;
  /**
   * Largest job input this supervisor runs, serialized (UTF-8 bytes); a larger one (written by
   * something other than a Client, which refuses it) is set aside as broken, INPUT_TOO_LARGE.
   * Default 1 MiB, the Client's default.
   */
  maxPayloadBytes?: number;
  /**
   * Start even when Redis may evict keys (any maxmemory-policy but noeviction). An evicted job
   * is a lost job, so by default start() refuses with EVICTING_REDIS. Default false.
   */
  allowEviction?: boolean;
  /**
   * How often this supervisor writes its machines and queue to the registry again, which
   * restores them after Redis lost its data without a reconnect (FLUSHALL); a reconnect writes
   * them at once. Default 30 s.
   */
  registryRefreshMs?: number;
  /**
   * Start although a pipeline's definition differs from the one registered for its name and
   * version (start() refuses with MACHINE_CHANGED otherwise): true, or the changes accepted as
   * 'name@version' (or 'name' for all its versions). The registry then holds this definition.
   */
  acceptChangedMachines?: boolean | readonly string[];
  /**
   * Move entries foreign producers push onto the queue's ingress list into jobs
   * (docs/ingress.md). Costs one blocking connection. Default true (when the store has one).
   */
  ingress?: boolean;
  /**
   * Deliver the webhooks jobs of this queue asked for (docs/webhooks.md): true (default),
   * false, or settings (retries, deadline, onDelivery, ...). Costs one EXISTS per 30 s while no
   * job of the queue has hooks.
   */
  webhooks?: boolean | WebhookSettings;
  /**
   * Hosts webhooks may reach although they are not public addresses (the SSRF guard refuses
   * loopback, private, link-local, ... otherwise): names or IPs, optionally `host:port`.
   */
  webhookAllowHosts?: readonly string[];
  logger?: Logger;
  /**
   * Told of each attempt's start, states and end, and of lease requeues: e.g. a
   * `MachinistMetrics` (src/metrics). None by default.
   */
  observers?: readonly JobObserver[];
  /**
   * Trace attempts with OpenTelemetry when `@opentelemetry/api` is installed and a tracer
   * provider is registered (a `process <queue>` span per attempt, linked to the enqueue's
   * `publish` span; a child span per pipeline state). Default true; without a provider it
   * starts no span.
   */
  tracing?: boolean;
  /**
   * While started, an error a job's own code throws or rejects where nothing awaits it (a throw
   * from a timer, an unhandled rejection) fails that job's attempt (its retry policy applies)
   * instead of ending the process; one with no job is logged. Installs process-wide
   * `uncaughtException` / `unhandledRejection` handlers on start (one pair, shared by every
   * supervisor of the process) and removes them on stop. Default false; `machinist worker`,
   * `serve --worker` and `dev` turn it on. docs/production.md, Stray errors.
   * @example new Supervisor({ store, jobs, isolateStrayErrors: true })
   */
  isolateStrayErrors?: boolean;
  /**
   * Fire the store's schedules (docs/schedules.md; ScheduleLoop.ts): true (default) or false to
   * opt out, or `{ leaseMs }`: how long a claimed schedule is held before another supervisor
   * may fire it (default 10 s: what a supervisor killed mid-tick delays its schedule by), and
   * `bufferRecheckMs`: how often a schedule with buffered ticks is looked at again although no
   * ending woke it (default 10 s: the net under a supervisor that followed the job and was
   * killed; the job's ending starts a buffered tick at once).
   * Ignored on a store without the Schedules role.
   */
  schedules?: boolean | { leaseMs?: number; bufferRecheckMs?: number };
}

export interface StopResult {
  /** True when jobs were still running at the end of the grace period and were requeued. */
  forced: boolean;
  requeued: number;
}

/** The options with every default filled in and checked. */
export interface SupervisorSettings {
  readonly store: Store;
  readonly jobs: readonly AnyDefinition[];
  /** The first queue served. */
  readonly queue: string;
  /** Every queue served, with its weight, in the order given. */
  readonly queues: readonly { readonly name: string; readonly weight: number }[];
  readonly queueOrder: QueueOrder;
  readonly concurrency: number;
  /** THE EARLY LEASE: its lead (ms; 0: off) and the supervisor's budget of held jobs. */
  readonly leadMs: number;
  readonly holdMax: number;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly reaperIntervalMs: number;
  readonly maxLeaseRequeues: number;
  readonly idleWaitMs: number;
  readonly workerId: string;
  readonly maxPayloadBytes: number;
  readonly allowEviction: boolean;
  readonly registryRefreshMs: number;
  readonly acceptChangedMachines: boolean | readonly string[];
  readonly ingress: boolean;
  /** Undefined: no webhook deliveries (turned off, or the store keeps no hooks). */
  readonly webhooks: WebhookSettings | undefined;
  readonly log: Logger;
  readonly observers: readonly JobObserver[];
  readonly tracing: boolean;
  readonly isolateStrayErrors: boolean;
  /** Undefined: this supervisor fires no schedules. */
  readonly schedules: { leaseMs: number; bufferRecheckMs: number } | undefined;
}

const ulid = ulidFactory();

export function resolveSupervisorOptions(options: SupervisorOptions): SupervisorSettings {
  if (!options?.store) throw new TypeError('Supervisor: store is required');
  const queues = resolveQueues(options);
  const queueOrder = options.queueOrder ?? 'weighted';
  if (queueOrder !== 'weighted' && queueOrder !== 'strict')
    throw new TypeError(`Supervisor: queueOrder must be 'weighted' or 'strict' (got ${String(queueOrder)})`);
  if (queueOrder === 'strict' && queues.some((q) => q.weight !== 1))
    throw new TypeError(
      "Supervisor: queueOrder 'strict' takes no weights (the order given is the order served)",
    );
  const numbers = {
    concurrency: options.concurrency ?? 10,
    leaseMs: options.leaseMs ?? 30_000,
    heartbeatMs: options.heartbeatMs ?? 10_000,
    reaperIntervalMs: options.reaperIntervalMs ?? 5_000,
    idleWaitMs: options.idleWaitMs ?? 5_000,
    registryRefreshMs: options.registryRefreshMs ?? 30_000,
    maxPayloadBytes: options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES,
  };
  for (const [k, v] of Object.entries(numbers)) {
    if (!Number.isFinite(v) || v <= 0)
      throw new TypeError(`Supervisor: ${k} must be a number > 0 (got ${v})`);
  }
  if (!Number.isInteger(numbers.concurrency))
    throw new TypeError('Supervisor: concurrency must be an integer');
  if (numbers.heartbeatMs >= numbers.leaseMs)
    throw new TypeError('Supervisor: heartbeatMs must be below leaseMs');
  const leadMs = options.leadMs ?? 0;
  if (!Number.isFinite(leadMs) || leadMs < 0)
    throw new TypeError(`Supervisor: leadMs must be a number >= 0 (0: no early lease; got ${leadMs})`);
  const holdMax = options.holdMax ?? 1_000;
  if (!Number.isInteger(holdMax) || holdMax < 0)
    throw new TypeError(`Supervisor: holdMax must be an integer >= 0 (got ${holdMax})`);
  let webhooks: WebhookSettings | undefined;
  if (options.webhooks !== false && hasWebhooks(options.store)) {
    const settings = typeof options.webhooks === 'object' ? options.webhooks : {};
    webhooks = {
      ...settings,
      allowHosts: [...(settings.allowHosts ?? []), ...(options.webhookAllowHosts ?? [])],
    };
  }
  return {
    ...numbers,
    leadMs,
    holdMax,
    store: options.store,
    jobs: options.jobs ?? [],
    queue: queues[0]!.name,
    queues,
    queueOrder,
    maxLeaseRequeues: options.maxLeaseRequeues ?? 5,
    workerId: options.workerId ?? `${hostname()}-${process.pid}-${ulid().slice(-6)}`,
    allowEviction: options.allowEviction ?? false,
    acceptChangedMachines: options.acceptChangedMachines ?? false,
    ingress: options.ingress !== false,
    webhooks,
    log: options.logger ?? pino({ name: 'machinist', level: process.env.MACHINIST_LOG ?? 'warn' }),
    observers: options.observers ?? [],
    tracing: options.tracing ?? true,
    isolateStrayErrors: options.isolateStrayErrors === true,
    schedules: resolveSchedules(options.schedules),
  };
}

function resolveSchedules(
  o: SupervisorOptions['schedules'],
): { leaseMs: number; bufferRecheckMs: number } | undefined {
  if (o === false) return undefined;
  const given = typeof o === 'object' && o !== null ? o : {};
  const leaseMs = given.leaseMs ?? 10_000;
  const bufferRecheckMs = given.bufferRecheckMs ?? 10_000;
  if (!Number.isFinite(leaseMs) || leaseMs < 100)
    throw new TypeError(`Supervisor: schedules.leaseMs must be a number >= 100 (got ${leaseMs})`);
  if (!Number.isFinite(bufferRecheckMs) || bufferRecheckMs < 100)
    throw new TypeError(
      `Supervisor: schedules.bufferRecheckMs must be a number >= 100 (got ${bufferRecheckMs})`,
    );
  return { leaseMs, bufferRecheckMs };
}

/** `queues` (names or `{ name, weight }`) or `queue`, checked: at least one, none twice. */
function resolveQueues(options: SupervisorOptions): { name: string; weight: number }[] {
  if (options.queues !== undefined && options.queue !== undefined)
    throw new TypeError('Supervisor: give queue or queues, not both');
  const given = options.queues ?? [options.queue ?? 'default'];
  if (!Array.isArray(given) || given.length === 0)
    throw new TypeError('Supervisor: queues must be a non-empty array of queue names or { name, weight }');
  const seen = new Set<string>();
  return given.map((q: string | ServedQueue) => {
    const name = typeof q === 'string' ? q : q?.name;
    const weight = typeof q === 'string' ? 1 : (q?.weight ?? 1);
    assertQueueName(name);
    if (seen.has(name)) throw new TypeError(`Supervisor: queue '${name}' is named twice in queues`);
    seen.add(name);
    if (!Number.isFinite(weight) || weight <= 0)
      throw new TypeError(`Supervisor: the weight of queue '${name}' must be a number > 0 (got ${weight})`);
    return { name, weight };
  });
}
