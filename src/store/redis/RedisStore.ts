// The production Store: every write is one Lua script (see lua/), every key of a queue shares
// the queue's hash tag. Blocking reads (waiting for work, following events, waiting for
// results) use connections of their own so they never hold up commands.
//
// Two kinds of call (see BoundedCalls.ts): a supervisor's (commit, heartbeat, reap, waits)
// go over `redis`, which waits out any outage and re-sends after it; a client's (enqueue,
// reads, cancel, send, results) go over a fail-fast connection and give up after
// `commandTimeoutMs` with REDIS_UNAVAILABLE, having written nothing that could land later.
//
// The connections, settings, the format check and the ServerChecks and ConnectionEvents roles
// are in RedisStoreBase.ts, the Registry role (machines, queues, partitions, counts) in
// RedisStoreRegistry.ts, the Schedules role in RedisStoreSchedules.ts; this file holds the other
// roles' methods.

import { assertQueueName } from '../keys.js';
import {
  type AuditEntry,
  type BrokenEntry,
  type CancelOutcome,
  type ClaimRequest,
  type CommitOp,
  type CommitResult,
  type DeadLetter,
  type EnqueueResult,
  type IngressDecision,
  type IngressDrained,
  type FanState,
  type JobRecord,
  type JobStatus,
  type LeaseState,
  type ListQuery,
  type NewJob,
  type QueueEvent,
  type ReapResult,
  type RelayResult,
  type ConnectionEvents,
  type ControlChannel,
  type Ingress,
  type ServerChecks,
  type Store,
  type WebhookHost,
  type WorkWaiter,
  type QueuesWaiter,
  type Schedules,
  type QueueFlow,
  type QueueFlowChange,
} from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { RedisStoreSchedules } from './RedisStoreSchedules.js';
import * as fanOps from './fanOutOps.js';
import * as listJobs from './listJobs.js';
import * as deadLetterOps from './deadLetterOps.js';
import * as leaseOps from './leaseOps.js';
import * as resultOps from './resultOps.js';
import * as eventOps from './eventOps.js';
import * as enqueueOps from './enqueueOps.js';
import * as jobOps from './jobOps.js';
import * as ingressOps from './ingressOps.js';
import * as flowOps from './flowOps.js';
import * as seriesOps from './seriesOps.js';
import { RedisHookStore } from './RedisHookStore.js';
import type { HookStore } from '../HookStore.js';
import type { MinuteTally } from '../queueSeries.js';
import type { MinuteTallies } from '../roles/MinuteTallies.js';
import { commitRoundTrip } from './commitOps.js';
import * as serverOps from './serverOps.js';
import { searchPages } from '../search/searchPages.js';
import { storedQueues } from '../partitions.js';
import type { SearchPage, SearchQuery } from '../search/searchQuery.js';
import type { JobSearch } from '../roles/JobSearch.js';

export type { RedisStoreOptions } from './redisStoreOptions.js';

/** Every required role, and the optional Ingress, WebhookHost, ControlChannel, ConnectionEvents, ServerChecks, Schedules (in RedisStoreSchedules), JobSearch, MinuteTallies, Fleet (in RedisStoreRegistry). */

export class RedisStore
  extends RedisStoreSchedules
  implements
    Store,
    Ingress,
    WebhookHost,
    ControlChannel,
    ConnectionEvents,
    ServerChecks,
    Schedules,
    JobSearch,
    MinuteTallies
{
  /** Ids are the caller's (made before the first attempt): a resend after a lost reply carries
   * the same ones, and enqueue-5 does not create a job twice under one id. */
  enqueue(queue: string, jobs: NewJob[]): Promise<EnqueueResult[]> {
    const ids = jobs.length === 1 ? { jobId: jobs[0]!.id, queue } : { queue };
    const write = (c: RedisContext) => enqueueOps.enqueue(c, queue, jobs, this.idemTtlMs, this.knownQueues);
    // A process's first write stamps a fresh store, or is refused on one of another format.
    return this.calls.call(
      'enqueue',
      (c) => (this.formatChecked ? write(c) : this.checkFormat(c.redis).then(() => write(c))),
      { ids, writes: true },
    );
  }

  commit(queue: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> {
    return commitRoundTrip(this.ctx, queue, ops, claim);
  }

  fanOpen(
    parentId: string,
    queue: string,
    group: string,
    total: number,
    policy: 'failFast' | 'collect',
    token?: string,
  ): Promise<FanState> {
    return fanOps.fanOpen(this.ctx, queue, parentId, group, total, policy, token);
  }

  fanGroups(parentId: string, queue: string): Promise<{ group: string; total: number; finished: number }[]> {
    return this.calls.call('get', (c) => fanOps.fanGroups(c, queue, parentId), {
      ids: { jobId: parentId, queue },
    });
  }

  childIds(parentId: string, queue: string, offset: number, limit: number): Promise<string[]> {
    return this.calls.call('cancel', (c) => fanOps.childIds(c, queue, parentId, offset, limit), {
      ids: { jobId: parentId, queue },
    });
  }

  relayOutbox(queue: string): Promise<RelayResult> {
    return fanOps.relayOutbox(this.ctx, queue);
  }

  list(query: ListQuery): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    return this.calls.call('list', (c) => listJobs.list(c, query), { ids: { queue: query.queue } });
  }

  /** JobSearch: THE BOUNDED SCAN (search/searchPages.ts) over the queues' zsets. */
  searchJobs(query: SearchQuery): Promise<SearchPage<JobRecord>> {
    return this.calls.call('searchJobs', (c) =>
      searchPages(
        { queues: () => storedQueues(this), pagesOf: (queue) => listJobs.pagesOf(c, queue) },
        query,
      ),
    );
  }

  /** Bounded (REDIS_UNAVAILABLE after commandTimeoutMs): the API's and dashboard's reads use it. */
  now(): Promise<number> {
    return this.calls.call('now', (c) => serverOps.serverTime(c.redis));
  }

  readInbox(id: string, queue: string, from: number): Promise<string[]> {
    return jobOps.readInbox(this.ctx, queue, id, from);
  }

  /** The event id makes a resend safe: send-5 takes one id once. */
  send(id: string, queue: string, event: string, eventType: string, eventId: string): Promise<boolean> {
    return this.calls.call('send', (c) => jobOps.send(c, queue, id, event, eventType, eventId), {
      ids: { jobId: id, queue },
      writes: true,
    });
  }

  heartbeat(queue: string, leases: { id: string; token: string }[], leaseMs: number): Promise<LeaseState[]> {
    return leaseOps.heartbeat(this.ctx, queue, leases, leaseMs);
  }

  reap(queue: string, options: { maxLeaseRequeues: number; lockMs?: number }): Promise<ReapResult> {
    return leaseOps.reap(this.ctx, queue, options);
  }

  /** Retention: deletes done and cancelled records older than `finishedTtlMs` (see leaseOps.ts). */
  sweep(queue: string): Promise<number> {
    return leaseOps.sweep(this.ctx, queue);
  }

  workWaiter(): QueuesWaiter {
    return this.connections.queuesWaiter({
      marker: (queue) => this.keys(queue).marker,
      wake: (queue, waiterId) => this.keys(queue).base + 'wake:' + waiterId,
    });
  }

  /** See Store.drainIngress (lua/drainIngress-7.lua); waits out an outage like a supervisor's calls. */
  drainIngress(
    queue: string,
    max: number,
    decide: (raw: Buffer) => IngressDecision | Promise<IngressDecision>,
  ): Promise<IngressDrained> {
    return ingressOps.drainIngress(this.ctx, queue, max, decide, this.idemTtlMs);
  }

  /**
   * Waits until the ingress list has entries: BLMOVE from the list's right end to the same end,
   * which Redis documents as a no-op for the list, so waiting changes nothing and costs one
   * blocked command per timeout (no polling).
   */
  ingressWaiter(queue: string): WorkWaiter {
    return this.connections.waiter(this.keys(queue).ingress, (conn, key, seconds) =>
      conn.blmove(key, key, 'RIGHT', 'RIGHT', seconds),
    );
  }

  /**
   * The webhook dispatcher's state for one queue (src/webhooks/WebhookDispatcher.ts), on
   * connections of its own; `close()` it when done.
   */
  webhookStore(queue: string): HookStore {
    return new RedisHookStore(this.redis, this.keys(queue));
  }

  /** Listens for control messages addressed to one worker (one subscriber connection for all). */
  subscribeControl(
    queue: string,
    workerId: string,
    onMessage: (message: string) => void,
  ): Promise<() => Promise<void>> {
    return this.connections.subscribe(this.keys(queue).control(workerId), onMessage);
  }

  getJob(id: string, queue?: string): Promise<JobRecord | null> {
    return this.calls.call('get', (c) => jobOps.getJob(c, id, queue), { ids: { jobId: id, queue } });
  }

  queueOf(id: string): Promise<string | null> {
    return this.calls.call('locate', (c) => jobOps.resolveQueue(c, id), { ids: { jobId: id } });
  }

  jobStatus(id: string, queue: string): Promise<{ status: JobStatus; cancelRequested: boolean } | null> {
    return jobOps.jobStatus(this.ctx, id, queue);
  }

  getLog(id: string, queue?: string): Promise<AuditEntry[]> {
    return this.calls.call(
      'events',
      async (c) => eventOps.getLog(c, id, await jobOps.queueOf(c, id, queue)),
      { ids: { jobId: id, queue } },
    );
  }

  /** Sent again after a lost reply: a job cancelled by the first attempt then reads `finished`. */
  cancel(id: string, queue?: string, reason = 'cancelled by request'): Promise<CancelOutcome> {
    return this.calls.call('cancel', (c) => jobOps.cancel(c, id, queue, reason), {
      ids: { jobId: id, queue },
      writes: true,
    });
  }

  deadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    return this.calls.call('deadLetters', (c) => deadLetterOps.deadLetters(c, queue, limit), {
      ids: { queue },
    });
  }

  broken(queue: string, limit: number): Promise<BrokenEntry[]> {
    return this.calls.call('broken', (c) => deadLetterOps.broken(c, queue, limit), { ids: { queue } });
  }

  /** Not sent again once it may have reached Redis: the retried job may be running already. */
  retryDeadLetter(id: string, queue?: string): Promise<void> {
    return this.calls.call('retryDeadLetter', (c) => deadLetterOps.retryDeadLetter(c, id, queue), {
      ids: { jobId: id, queue },
      writes: true,
      resend: 'if-unsent',
    });
  }

  purgeDeadLetters(queue: string): Promise<number> {
    return this.calls.call('purgeDeadLetters', (c) => deadLetterOps.purgeDeadLetters(c, queue), {
      ids: { queue },
      writes: true,
    });
  }

  /** Sent again after a lost reply: the second attempt finds nothing to purge and says false. */
  purgeDeadLetter(id: string, queue?: string): Promise<boolean> {
    return this.calls.call('purgeDeadLetter', (c) => deadLetterOps.purgeDeadLetter(c, id, queue), {
      ids: { jobId: id, queue },
      writes: true,
    });
  }

  readEvents(queue: string, cursor: string, blockMs: number, count = 500): Promise<QueueEvent[]> {
    // A read that does not block is bounded like any client call (the dashboard's overview
    // reads pages of the stream); a blocking one is its caller's to bound (EventHub).
    if (blockMs <= 0)
      return this.calls.call(
        'readEvents',
        (c) => eventOps.readEvents(c, () => c.redis, queue, cursor, 0, count),
        { ids: { queue } },
      );
    return eventOps.readEvents(
      this.ctx,
      // A connection of its own: it is held while the read blocks.
      () => this.connections.reader('events:' + queue),
      queue,
      cursor,
      blockMs,
      count,
    );
  }

  watchJob(id: string, queue: string, watcherId: string): Promise<JobRecord | null> {
    return this.calls.call('waitForResult', (c) => resultOps.watchJob(c, queue, id, watcherId), {
      ids: { jobId: id, queue },
    });
  }

  unwatchJob(id: string, queue: string, watcherId: string): Promise<void> {
    return this.calls.call('unwatchJob', (c) => resultOps.unwatchJob(c, queue, id, watcherId), {
      ids: { jobId: id, queue },
      writes: true,
    });
  }

  /** Over a fail-fast reader of its own: a wait learns of an outage within `commandTimeoutMs`. */
  readResults(queue: string, watcherId: string, blockMs: number): Promise<JobRecord[]> {
    const r = this.connections.resultsReader(queue, watcherId, () => this.calls.reader());
    return this.calls.call('waitForResult', (c) => resultOps.readResults(c, r, queue, watcherId, blockMs), {
      ids: { queue },
      reader: r,
      blockMs,
    });
  }

  endResults(queue: string, watcherId: string): void {
    this.connections.endResults(queue, watcherId);
  }

  lastEventCursor(queue: string): Promise<string> {
    return this.calls.call('lastEventCursor', (c) => eventOps.lastEventCursor(c, queue), { ids: { queue } });
  }

  // FlowControl

  /** Pauses, resumes or sets the limits of one stored queue (lua/flow-3.lua). */
  setQueueFlow(queue: string, change: QueueFlowChange): Promise<void> {
    assertQueueName(queue);
    return this.calls.call('setQueueFlow', (c) => flowOps.setQueueFlow(c, queue, change), {
      ids: { queue },
      writes: true,
    });
  }

  /** The flow gate of one stored queue and its current use. */
  queueFlow(queue: string): Promise<QueueFlow> {
    assertQueueName(queue);
    return this.calls.call('queueFlow', (c) => flowOps.queueFlow(c, queue), { ids: { queue } });
  }

  /** Pauses or resumes one concurrency key of a stored queue (lua/keyPause-3.lua). */
  setKeyPaused(queue: string, key: string, paused: boolean): Promise<void> {
    assertQueueName(queue);
    return this.calls.call('setKeyPaused', (c) => flowOps.setKeyPaused(c, queue, key, paused), {
      ids: { queue },
      writes: true,
    });
  }

  // MinuteTallies

  /** `count` minutes of a stored queue's tallies from minute `first` (lua/include/lcTally.lua). */
  minuteTallies(queue: string, first: number, count: number): Promise<MinuteTally[]> {
    assertQueueName(queue);
    return this.calls.call('minuteTallies', (c) => seriesOps.minuteTallies(c, queue, first, count), {
      ids: { queue },
    });
  }
}
