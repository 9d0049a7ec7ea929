// MemoryStore's ResultWatch and EventLog roles: a watcher registered on a job (its final record
// is pushed to the ResultBox when it finishes), and the queue's event stream read by cursor.

import { FINISHED, type JobRecord, type QueueEvent } from '../types.js';
import { toRecord } from './MemoryJob.js';
import type { MemoryCore } from './MemoryCore.js';

export function watchJob(
  core: MemoryCore,
  id: string,
  queue: string,
  watcherId: string,
): Promise<JobRecord | null> {
  return core.op(() => {
    const q = core.queue(queue);
    const j = core.liveJob(q, id);
    if (!j) return null;
    if (!FINISHED.has(j.status)) {
      j.watchers ??= [];
      if (!j.watchers.includes(watcherId)) j.watchers.push(watcherId);
    }
    return toRecord(j, queue);
  }, false);
}

export function unwatchJob(core: MemoryCore, id: string, queue: string, watcherId: string): Promise<void> {
  return core.op(() => {
    const j = core.liveJob(core.queueData.get(queue), id);
    if (!j?.watchers) return;
    j.watchers = j.watchers.filter((w) => w !== watcherId);
    if (j.watchers.length === 0) delete j.watchers;
  }, false);
}

export async function readEvents(
  core: MemoryCore,
  queue: string,
  cursor: string,
  blockMs: number,
  count = 500,
): Promise<QueueEvent[]> {
  const q = core.queue(queue);
  const since = cursorPair(cursor);
  const until = performance.now() + blockMs;
  for (;;) {
    const out: QueueEvent[] = [];
    for (const e of q.events) {
      const [ms, n] = cursorPair(e.cursor);
      if (ms > since[0] || (ms === since[0] && n > since[1])) out.push({ ...e });
      if (out.length >= count) break;
    }
    const left = until - performance.now();
    if (out.length > 0 || left <= 0 || core.closed) return out;
    await core.events.wait(left);
  }
}

export function lastEventCursor(core: MemoryCore, queue: string): Promise<string> {
  return core.op(() => core.queue(queue).events.at(-1)?.cursor ?? '0-0', false);
}

/** An event cursor "<ms>-<n>" as numbers, compared as Redis compares stream entry ids. */
function cursorPair(cursor: string): [number, number] {
  const [ms, n] = cursor.split('-').map(Number);
  return [Number.isFinite(ms) ? ms! : 0, Number.isFinite(n) ? n! : 0];
}
