// What `machinist find` does (its options: commands/find.ts): one bounded scan (or, with --all,
// every one to the end), printed as `ls` prints jobs, with how many records were read and the
// cursor to go on from.

import { parseFilter } from '../../store/search/searchQuery.js';
import type { JobRecord, JobStatus, SearchQuery } from '../../store/types.js';
import { withBackend, type GlobalOptions } from '../connect.js';
import { json, table, time, value } from '../format.js';

export interface FindOptions {
  queue?: string;
  id?: string;
  machine?: string;
  status?: JobStatus;
  state?: string;
  createdFrom?: number;
  createdTo?: number;
  updatedFrom?: number;
  updatedTo?: number;
  limit: number;
  scan: number;
  cursor?: string;
  all?: boolean;
  json?: boolean;
}

export async function runFind(globals: GlobalOptions, filters: string[], opts: FindOptions): Promise<void> {
  // A bad filter is refused before anything is read (INVALID_INPUT, naming it).
  const where = filters.map(parseFilter);
  await withBackend(globals, async (backend) => {
    const query: SearchQuery = {
      queue: opts.queue,
      idPrefix: opts.id,
      machine: opts.machine,
      status: opts.status,
      state: opts.state,
      createdFrom: opts.createdFrom,
      createdTo: opts.createdTo,
      updatedFrom: opts.updatedFrom,
      updatedTo: opts.updatedTo,
      where,
      limit: opts.limit,
      scanLimit: opts.scan,
    };
    const jobs: JobRecord[] = [];
    let cursor = opts.cursor;
    let scanned = 0;
    do {
      const page = await backend.search({ ...query, cursor });
      jobs.push(...page.jobs);
      scanned += page.scanned;
      cursor = page.cursor ?? undefined;
    } while (opts.all && cursor);
    if (opts.json) return void console.log(json({ jobs, cursor: cursor ?? null, scanned }));
    if (jobs.length === 0) console.log('no jobs found');
    else {
      const rows = jobs.map((j) => [
        j.id,
        j.queue,
        j.machine,
        j.status,
        value(j.state, 30),
        value(j.input, 40),
        time(j.updatedAt),
      ]);
      console.log(table(['ID', 'QUEUE', 'MACHINE', 'STATUS', 'STATE', 'INPUT', 'UPDATED'], rows));
    }
    console.log(`${scanned} records read`);
    if (cursor) console.log(`more: --cursor ${cursor}`);
  });
}
