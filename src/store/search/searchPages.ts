// THE BOUNDED SCAN that answers a search for jobs on every backend (Redis 7.0 has no Query
// Engine, and an index kept for searches would cost every write): the queues in name order,
// each queue's status indexes in `list`'s order (active, queued, delayed, waiting, done, failed,
// cancelled), each index newest first, read `BATCH` ids at a time with their records in one
// round trip (a pipeline on Redis), tested by matchRecord. A call stops after `scanLimit` index
// entries or `limit` matches, whichever comes first, and answers a cursor
// `<queue>/<index position>/<offset>` that the next call resumes from.
// What it costs: nothing until asked; then one round trip per BATCH entries. What it does not
// promise: a snapshot (a job that moves between indexes during a walk can be seen twice or not at
// all, as with `list`).

import type { JobRecord } from '../jobRecord.js';
import { LIST_ORDER, STATUS_INDEXES, type IndexPages } from '../listPages.js';
import { matchRecord } from './matchRecord.js';
import {
  checkSearchQuery,
  CURSOR,
  SCAN_LIMIT,
  SEARCH_LIMIT,
  type SearchPage,
  type SearchQuery,
} from './searchQuery.js';

/** Index entries read per round trip. */
const BATCH = 200;

/** What a backend gives the walk: the queues it knows, and each queue's indexes and records. */
export interface SearchSource {
  queues(): Promise<string[]>;
  pagesOf(queue: string): IndexPages;
}

export async function searchPages(src: SearchSource, query: SearchQuery): Promise<SearchPage<JobRecord>> {
  const q = checkSearchQuery(query);
  const limit = q.limit ?? SEARCH_LIMIT.default;
  const scanLimit = q.scanLimit ?? SCAN_LIMIT.default;
  const queues = q.queue !== undefined ? [q.queue] : [...(await src.queues())].sort();
  const indexes = q.status ? STATUS_INDEXES[q.status] : LIST_ORDER;
  let qi = 0;
  let si = 0;
  let offset = 0;
  if (q.cursor !== undefined) {
    const [, name, s, o] = CURSOR.exec(q.cursor)!;
    // A queue forgotten since the cursor was given: go on from the next one by name.
    qi = queues.findIndex((n) => n >= name!);
    if (qi < 0) qi = queues.length;
    else if (queues[qi] === name) [si, offset] = [Math.min(Number(s), indexes.length), Number(o)];
  }
  const jobs: JobRecord[] = [];
  let scanned = 0;
  while (qi < queues.length && jobs.length < limit && scanned < scanLimit) {
    if (si >= indexes.length) {
      [qi, si, offset] = [qi + 1, 0, 0];
      continue;
    }
    const index = indexes[si]!;
    const pages = src.pagesOf(queues[qi]!);
    const count = Math.min(BATCH, scanLimit - scanned);
    const ids = await pages.range({ index }, offset, count, true);
    // An id prefix is tested before any record is read.
    const wanted = q.idPrefix === undefined ? ids : ids.filter((id) => id.startsWith(q.idPrefix!));
    const recs = new Map((await pages.records(wanted)).map((r) => [r.id, r]));
    let used = 0;
    for (const id of ids) {
      used++;
      const r = recs.get(id);
      // A parked job with a wake time is in `delayed` and `waiting`: found once, from its status's index.
      if (r && STATUS_INDEXES[r.status].includes(index) && matchRecord(r, q)) {
        jobs.push(r);
        if (jobs.length >= limit) break;
      }
    }
    scanned += used;
    offset += used;
    if (used === ids.length && ids.length < count) [si, offset] = [si + 1, 0];
  }
  if (qi < queues.length && si >= indexes.length) [qi, si, offset] = [qi + 1, 0, 0];
  return {
    jobs,
    cursor: qi < queues.length ? `${queues[qi]}/${si}/${offset}` : null,
    scanned,
    engine: 'scan',
  };
}
