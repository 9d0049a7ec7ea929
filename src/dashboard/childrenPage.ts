// A page of a job's children, across the queues they may live on (a fan-out may send them to
// another queue): the parent's first, then every other queue. The cursor is
// "<queue position>|<the store's cursor in that queue>".

import { JobNotFoundError, ValidationError } from '../errors.js';
import type { Client } from '../client/Client.js';
import type { JobRecord, Store } from '../store/types.js';

export interface ChildRow {
  job: JobRecord;
  /** Its innermost active states on its machine's chart (filled in by the route). */
  active: string[] | null;
}

export async function childrenPage(
  store: Store,
  client: Client<never>,
  parentId: string,
  cursor: string | undefined,
  limit: number,
): Promise<{ jobs: ChildRow[]; cursor: string | null; total: number }> {
  const parent = await client.get(parentId);
  if (!parent) throw new JobNotFoundError(parentId);
  const queues = [parent.queue, ...(await store.queues()).filter((q) => q !== parent.queue).sort()];
  let [pos, inner] = parseCursor(cursor, queues.length);
  const rows: ChildRow[] = [];
  while (pos < queues.length && rows.length < limit) {
    const page = await store.list({
      queue: queues[pos]!,
      parentId,
      cursor: inner,
      limit: limit - rows.length,
    });
    for (const j of page.jobs) {
      rows.push({ job: j, active: null });
    }
    if (page.cursor) inner = page.cursor;
    else {
      pos++;
      inner = undefined;
    }
  }
  const next = pos < queues.length ? `${pos}|${inner ?? ''}` : null;
  return { jobs: rows, cursor: next, total: parent.children?.total ?? 0 };
}

function parseCursor(cursor: string | undefined, queues: number): [number, string | undefined] {
  if (!cursor) return [0, undefined];
  const bar = cursor.indexOf('|');
  const pos = Number(cursor.slice(0, bar));
  if (bar < 0 || !Number.isInteger(pos) || pos < 0 || pos > queues) {
    throw new ValidationError(
      `cursor: not a cursor this route gave: ${JSON.stringify(cursor.slice(0, 60))}`,
      { field: 'cursor' },
    );
  }
  return [pos, cursor.slice(bar + 1) || undefined];
}
