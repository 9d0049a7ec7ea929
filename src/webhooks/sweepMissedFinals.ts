// The leader's sweep (every `sweepMs`): the net under a capped event stream. A finished job whose
// final event was trimmed before the leader read it still gets its final hook; a listing whose
// job was never created is dropped.

import type { Logger } from 'pino';
import { FINISHED } from '../store/types.js';
import type { HookSchedule, HookStore } from '../store/HookStore.js';
import { messagesFor, type MessageSource } from './hookMessages.js';

/** A listed job without a record this long after it was listed was never created. */
const DANGLING_MS = 10 * 60_000;

export interface SweepSource extends MessageSource {
  hooks: HookStore;
  /** The leader's name: its schedule is refused once its lease has passed. */
  owner: string;
  log: Logger;
}

/**
 * Finds finished jobs whose final event the leader never read (trimmed from the stream) and
 * schedules their final hook; drops listings whose job was never created.
 */
export async function sweepMissedFinals(src: SweepSource, cursor: string): Promise<void> {
  const { hooks, log } = src;
  const cursorMs = Number(cursor.split('-')[0]);
  const oldest = await hooks.oldestEvent();
  if (oldest && cursor !== '0-0' && compareIds(oldest, cursor) > 0)
    log.warn(
      { queue: src.queue, cursor, oldest },
      'webhook: events were trimmed before they were read; state hooks were missed',
    );
  const dangling: string[] = [];
  for (const { id, at } of await hooks.oldestHooked(200)) {
    const f = await hooks.finishOf(id);
    if (!f) {
      if (at < Date.now() - DANGLING_MS) dangling.push(id);
      continue;
    }
    if (!FINISHED.has(f.status) || f.finishedAt === null || f.finishedAt >= cursorMs - 60_000) continue;
    const j = (await hooks.jobs([id])).get(id);
    const s: HookSchedule = { messages: [], last: new Map(), finished: [id], cursor };
    if (j)
      await messagesFor(
        src,
        id,
        { cursor: `${f.finishedAt}-0`, jobId: id, type: f.status, status: f.status, at: f.finishedAt },
        j,
        s,
      );
    if (!(await hooks.schedule(src.owner, s, Date.now()))) return;
  }
  await hooks.unhook(dangling);
}

/** Stream ids compared as (ms, seq). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || as - bs;
}
