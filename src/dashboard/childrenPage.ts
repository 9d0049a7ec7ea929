// A page of a job's children, across the queues they live on (a fan-out may send them to
// another queue). The cursor is "<queue position>|<the store's cursor in that queue>".

import { JobNotFoundError, ValidationError } from '../errors.js';
import type { JobRecord, Store } from '../store/types.js';

export interface ChildRow {
  id: string;
  queue: string;
  status: string;
  machine: string;
  version: number;
  state: unknown;
  active: string[] | null;
}

export async function childrenPage(
  store: Store,
  parentId: string,
  cursor: string | undefined,
  limit: number,
  activeIds: (job: JobRecord) => string[] | null,
): Promise<{ jobs: ChildRow[]; cursor: string | null; total: number }> {
  const parent = await store.getJob(parentId);
  if (!parent) throw new JobNotFoundError(parentId);
  const queues = [...new Set([parent.queue, ...(parent.children?.jobs ?? []).map((c) => c.queue)])];
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
      rows.push({
        id: j.id,
        queue: j.queue,
        status: j.status,
        machine: j.machine,
        version: j.version,
        state: j.state,
        active: activeIds(j),
      });
    }
    if (page.cursor) inner = page.cursor;
    else {
      pos++;
      inner = undefined;
    }
  }
  const next = pos < queues.length ? `${pos}|${inner ?? ''}` : null;
  return { jobs: rows, cursor: next, total: parent.children?.total ?? rows.length };
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
