// Key layout. Every key of a queue carries the queue's hash tag `{queue}`, so a script that
// touches several of them (and the job keys it derives from the prefix) runs on one Redis
// Cluster slot. Keys shared by all queues (the machine registry) are only touched one at a time.

import { ValidationError } from '../errors.js';

// No '#': a partition of queue q is stored as `q#<i>` (partitions.ts), which never collides with
// a queue's own name. A partition's name is accepted too (tools may name one partition).
const QUEUE_NAME = /^[A-Za-z0-9._:-]{1,100}(#\d{1,4})?$/;

export function assertQueueName(queue: unknown): asserts queue is string {
  if (typeof queue !== 'string' || !QUEUE_NAME.test(queue)) {
    throw new ValidationError(
      `queue must be 1-100 characters of letters, digits, '.', '_', ':' or '-' (got ${JSON.stringify(queue)})`,
      { field: 'queue' },
    );
  }
}

export interface QueueKeys {
  /** "<prefix>:{<queue>}:" — scripts derive job, inbox and idempotency keys from it. */
  base: string;
  queued: string;
  /**
   * THE READY LIST (format 3, lua/include/lcReady.lua): runnable jobs of the normal band without a
   * key, in line; `queued` holds the others. `readyGone`: its stale entries, id -> count ('' ->
   * their total).
   */
  ready: string;
  readyGone: string;
  delayed: string;
  active: string;
  waiting: string;
  meta: string;
  events: string;
  marker: string;
  done: string;
  failed: string;
  cancelled: string;
  dead: string;
  broken: string;
  brokenWhy: string;
  /** Entries foreign producers LPUSH (docs/ingress.md); drainIngress-7.lua makes them jobs. */
  ingress: string;
  /** Webhooks (src/webhooks/WebhookDispatcher.ts): unfinished jobs with hooks, by time added. */
  hooked: string;
  /** Webhooks: chains with a delivery due, by due time (ms). */
  hookDue: string;
  /** Webhooks: the event-stream cursor the dispatcher has processed up to. */
  hookCursor: string;
  /** Webhooks: the lease of the one dispatcher that follows the stream and delivers. */
  hookLease: string;
  /** Webhooks: a chain's pending deliveries (`<jobId>|s` state hooks, `<jobId>|f` the final one). */
  hookChain(chain: string): string;
  /** Webhooks: per job, the last status told and the receivers that answered 410. */
  hookMeta(id: string): string;
  job(id: string): string;
  inbox(id: string): string;
  children(id: string): string;
  fan(parentId: string, group: string): string;
  control(workerId: string): string;
  /** A watcher's list of finished records (lua/include/pushResult.lua). */
  result(watcherId: string): string;
  /** Zset of the jobs the reaper took back, by time: JSON { w: worker, id, o: outcome } (reap-7.lua). */
  reaped: string;
}

export function queueKeys(prefix: string, queue: string): QueueKeys {
  const base = `${prefix}:{${queue}}:`;
  return {
    base,
    queued: base + 'queued',
    ready: base + 'ready',
    readyGone: base + 'readygone',
    delayed: base + 'delayed',
    active: base + 'active',
    waiting: base + 'waiting',
    meta: base + 'meta',
    events: base + 'events',
    marker: base + 'marker',
    done: base + 'done',
    failed: base + 'failed',
    cancelled: base + 'cancelled',
    dead: base + 'dead',
    broken: base + 'broken',
    brokenWhy: base + 'brokenwhy',
    ingress: base + 'ingress',
    hooked: base + 'hooked',
    hookDue: base + 'hookdue',
    hookCursor: base + 'hookcursor',
    hookLease: base + 'hooklease',
    hookChain: (chain) => base + 'hookq:' + chain,
    hookMeta: (id) => base + 'hookmeta:' + id,
    job: (id) => base + 'job:' + id,
    inbox: (id) => base + 'inbox:' + id,
    children: (id) => base + 'children:' + id,
    fan: (parentId, group) => base + 'fan:' + parentId + ':' + group,
    control: (workerId) => base + 'ctl:' + workerId,
    result: (watcherId) => base + 'result:' + watcherId,
    reaped: base + 'reaped',
  };
}

/**
 * A fan-out child's id: `<parentId>.<group>.<index>`, where the group is the fan-out's invoke
 * path (and `~key`). Deterministic, so a parent that runs its fan-out again after a crash finds
 * its children already there (enqueue-5.lua skips an existing id) and does not fan out twice.
 */
export function childId(parentId: string, group: string, index: number): string {
  return `${parentId}.${group}.${index}`;
}

export const registryKey = (prefix: string): string => `${prefix}:machines`;
export const queuesKey = (prefix: string): string => `${prefix}:queues`;
/** Each partitioned queue's partition count (a hash, queue -> N), outside every hash tag. */
export const partitionsKey = (prefix: string): string => `${prefix}:partitions`;
/** The data format's version (storeFormat.ts): one key per deployment, outside every hash tag. */
export const formatKey = (prefix: string): string => `${prefix}:format`;

/**
 * The schedules' keys (roles/Schedules.ts), all under ONE hash tag of their own, `{~schedules}`:
 * every schedule script touches only these, so it runs on one Cluster slot. `~` is not allowed
 * in a queue's name (QUEUE_NAME), so no queue's keys can ever share the tag or the names.
 */
export interface ScheduleKeys {
  /** The prefix of them all, `<prefix>:{~schedules}:`. */
  base: string;
  /** Hash: schedule id -> body (JSON text: the spec part, or the whole schedule when it has no state). */
  defs: string;
  /** Hash: schedule id -> revision. */
  revs: string;
  /** Zset: schedule id -> when it is next due (ms); absent while paused or ended. */
  due: string;
  /** Hash: schedule id -> state (JSON text: what a tick changes). */
  state: string;
  /** List: its last actions (JSON texts), oldest first. */
  recent(id: string): string;
}

export function scheduleKeys(prefix: string): ScheduleKeys {
  const base = `${prefix}:{~schedules}:`;
  return {
    base,
    defs: base + 'defs',
    revs: base + 'revs',
    due: base + 'due',
    state: base + 'state',
    recent: (id) => `${base}recent:${id}`,
  };
}

/**
 * The fleet's keys (roles/Fleet.ts), under a hash tag of their own, `{~fleet}` (`~` is in no
 * queue's name): announce-2.lua writes both in one call.
 */
export interface FleetKeys {
  /** Hash: worker id -> its facts (JSON text). */
  facts: string;
  /** Zset: worker id -> when it last announced (store ms). */
  seen: string;
}

export function fleetKeys(prefix: string): FleetKeys {
  const base = `${prefix}:{~fleet}:`;
  return { facts: base + 'facts', seen: base + 'seen' };
}
