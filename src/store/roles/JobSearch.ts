// ROLE JobSearch (optional): finds jobs by id prefix, machine, status, current state, time range
// and fields of their input, context or output, a bounded page at a time with a cursor
// (store/search/searchPages.ts: THE BOUNDED SCAN; no index is kept, so it costs nothing unused).
// Both stores have it; callers ask with the guard below.

import type { JobRecord } from '../jobRecord.js';
import type { SearchPage, SearchQuery } from '../search/searchQuery.js';

export interface JobSearch {
  /** A page of matches and the cursor that continues the scan; INVALID_INPUT for a bad query. */
  searchJobs(query: SearchQuery): Promise<SearchPage<JobRecord>>;
}

export function hasJobSearch<S extends object>(store: S): store is S & JobSearch {
  return typeof (store as Partial<JobSearch>).searchJobs === 'function';
}
