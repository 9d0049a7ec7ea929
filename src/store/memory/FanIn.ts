// THE FAN-IN on MemoryStore: a finished child tells its parent (here when on the same queue,
// else through the queue's outbox), the parent's fan-out record counts each child's outcome once
// and wakes the parent when the set it awaits is complete, and a parent's fan-out records expire
// with it. Separate from MemoryLifecycle.ts, which calls it as a move's side effect (a final
// status) and makes the parent's wake as a move of its own (`wakeParked`); fanOps.ts relays the
// outbox into it.

import type { JobStatus } from '../types.js';
import type { MemoryJob } from './MemoryJob.js';
import { QueueState } from './QueueState.js';
import { encodeOutboxEntry } from '../outboxEntry.js';
import { tokenWorker } from './tokenWorker.js';

/** What the fan-in needs of the store around it (MemoryLifecycle's host has it). */
export interface FanInHost {
  readonly now: number;
  readonly finishedTtlMs: number;
  publish(q: QueueState, workerId: string, message: string): void;
}

export class FanIn {
  constructor(
    private readonly host: FanInHost,
    /** A parked parent whose awaited set is complete goes back to `queued` (a lifecycle move). */
    private readonly wakeParked: (pq: QueueState, parent: MemoryJob) => void,
  ) {}

  /** A finished child tells its parent: here when on the same queue, else through the outbox. */
  notifyParent(q: QueueState, j: MemoryJob, status: JobStatus, outcome: string): void {
    const children = q.children.get(j.parentId!);
    if (children) children.expiresAt = this.host.now + this.host.finishedTtlMs;
    if (!j.parentQueue) this.fanIn(q, j.parentId!, j.group ?? '', j.index ?? 0, status, outcome);
    else {
      // The entry carries the outcome: the relay never needs this record (retention may delete it).
      const entry = encodeOutboxEntry({
        childId: j.id,
        parentId: j.parentId!,
        parentQueue: j.parentQueue,
        group: j.group ?? '',
        index: String(j.index ?? 0),
        status,
        outcome,
      });
      q.index.outbox.add(entry, this.host.now);
    }
  }

  /**
   * Records one child's outcome in its parent's fan-out record (on `pq`, the parent's queue), at
   * most once per child, and wakes the parent when the set it awaits is complete: all done, or
   * (failFast) the first failure. True when recorded.
   */
  fanIn(
    pq: QueueState,
    parentId: string,
    group: string,
    index: number,
    status: string,
    result: string,
  ): boolean {
    const fan = this.liveFan(pq, parentId, group);
    if (!fan || fan.results.has(index)) return false;
    fan.results.set(index, result);
    const d = ++fan.finished;
    let complete = d >= fan.total;
    if (status !== 'done') {
      fan.failed++;
      if (fan.policy === 'failFast') complete = true;
    }
    const p = pq.jobs.get(parentId);
    if (!p) return true;
    p.progress = `{"children":{"done":${d},"total":${fan.total}}}`;
    if (complete && !fan.woken) {
      fan.woken = true;
      if (p.status === 'waiting') this.wakeParked(pq, p);
      else if (p.status === 'working' || p.status === 'loading') {
        // Running: tell its worker now; if it parks first, the park sees the flag and wakes it.
        p.fanInWake = true;
        const w = tokenWorker(p.token);
        if (w) this.host.publish(pq, w, `fanin ${parentId}`);
      } else if (p.status === 'queued') p.fanInWake = true;
    }
    return true;
  }

  /** A fan-out record that has not expired. */
  liveFan(q: QueueState, parentId: string, group: string) {
    const key = QueueState.fanKey(parentId, group);
    const fan = q.fans.get(key);
    if (fan?.expiresAt !== undefined && fan.expiresAt <= this.host.now) {
      q.fans.delete(key);
      return undefined;
    }
    return fan;
  }

  /** A parent that ended done or cancelled takes its fan-out records with it: they expire. */
  expireFans(q: QueueState, j: MemoryJob): void {
    for (const g of j.fanGroups ?? []) {
      const fan = q.fans.get(QueueState.fanKey(j.id, g.group));
      if (fan) fan.expiresAt = this.host.now + this.host.finishedTtlMs;
    }
  }
}
