// What a search for jobs asks (the JobSearch role, GET /jobs/search, `machinist find`): the
// query's shape, and the one parser of a field filter's text (`input.orderId = 42`) and checker
// of a whole query, so HTTP and the CLI refuse a bad query with the same words (INVALID_INPUT,
// `field` naming the part at fault).

import { ValidationError } from '../../errors.js';
import { JOB_STATUSES, type JobStatus } from '../jobStatus.js';

/** Compared as text (`contains`, `startsWith`) or, when both sides are numbers, as numbers. */
export const FILTER_OPS = ['=', '!=', '>=', '<=', '>', '<', 'contains', 'startsWith'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** The parts of a record a field filter may look into. */
export const FILTER_ROOTS = ['input', 'context', 'output', 'progress', 'state', 'error'] as const;

/** One test of a record's field: `input.customer.id = 42`. */
export interface FieldFilter {
  /** A dotted path from one of FILTER_ROOTS (`input.items.0.sku`). */
  path: string;
  op: FilterOp;
  value: string | number | boolean | null;
}

export interface SearchQuery {
  /** The queue to search; absent: every queue the store knows, in name order. */
  queue?: string;
  /** Ids starting with this text. */
  idPrefix?: string;
  machine?: string;
  status?: JobStatus;
  /** The current state: a state value's dotted path (`review.waiting`) or a prefix of it (`review`). */
  state?: string;
  /** Time range (ms since epoch, inclusive) of createdAt and updatedAt. */
  createdFrom?: number;
  createdTo?: number;
  updatedFrom?: number;
  updatedTo?: number;
  /** Every filter must hold. */
  where?: FieldFilter[];
  /** Matches to return at most (default 50, 1-500). */
  limit?: number;
  /** Records to read at most in this call (default 1000, 1-10000): THE BOUND of a scan. */
  scanLimit?: number;
  /** The `cursor` of the previous page. */
  cursor?: string;
}

export interface SearchPage<R> {
  jobs: R[];
  /** Pass back to continue the scan; null when every index was walked to its end. */
  cursor: string | null;
  /** How many index entries this call read. */
  scanned: number;
  /** How the search was answered: a bounded scan of the status indexes (docs/dashboard.md). */
  engine: 'scan';
}

export const SEARCH_LIMIT = { default: 50, max: 500 } as const;
export const SCAN_LIMIT = { default: 1000, max: 10_000 } as const;

const bad = (field: string, message: string): ValidationError =>
  new ValidationError(`search: ${message}`, { field });

// Longest operators first, so `>=` is not read as `>` followed by `= ...`.
const FILTER_TEXT =
  /^\s*([A-Za-z_$][\w$]*(?:\.[\w$-]+)*)\s*(!=|>=|<=|=|>|<|\s+contains\s+|\s+startsWith\s+)\s*(.*?)\s*$/;

/**
 * Reads `path op value`: the value as JSON when it is JSON (`42`, `true`, `"42"`, `null`), else
 * as the text given (`input.sku startsWith AB-`).
 */
export function parseFilter(text: string): FieldFilter {
  const m = FILTER_TEXT.exec(text);
  if (!m)
    throw bad(
      'where',
      `cannot read the filter ${JSON.stringify(text)}: write <path> <op> <value>, op one of ${FILTER_OPS.join(' ')}`,
    );
  const [, path, opText, valueText] = m;
  const filter = { path: path!, op: opText!.trim() as FilterOp, value: parseValue(valueText!) };
  checkFilter(filter);
  return filter;
}

function parseValue(text: string): FieldFilter['value'] {
  try {
    const v = JSON.parse(text) as unknown;
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) return v as FieldFilter['value'];
  } catch {
    // Not JSON: the text itself.
  }
  return text;
}

function checkFilter(f: FieldFilter): void {
  const root = f.path.split('.')[0];
  if (!(FILTER_ROOTS as readonly string[]).includes(root ?? ''))
    throw bad(
      'where',
      `the path ${JSON.stringify(f.path)} must start with one of ${FILTER_ROOTS.join(', ')}`,
    );
  if (!(FILTER_OPS as readonly string[]).includes(f.op))
    throw bad('where', `unknown operator ${JSON.stringify(f.op)} (one of ${FILTER_OPS.join(' ')})`);
  if (
    (f.op === 'contains' || f.op === 'startsWith') &&
    typeof f.value !== 'string' &&
    typeof f.value !== 'number'
  )
    throw bad('where', `${f.op} needs a text or a number (${f.path})`);
  if (['>', '<', '>=', '<='].includes(f.op) && typeof f.value !== 'number')
    throw bad('where', `${f.op} compares numbers: ${JSON.stringify(f.value)} is not one (${f.path})`);
}

const checkInt = (q: SearchQuery, field: keyof SearchQuery, min: number, max: number): void => {
  const v = q[field];
  if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max))
    throw bad(field, `${field} must be an integer from ${min} to ${max} (got ${JSON.stringify(v)})`);
};

/** Refuses a query the walk cannot answer, naming the part at fault; answers it as given. */
export function checkSearchQuery(q: SearchQuery): SearchQuery {
  if (q.status !== undefined && !(JOB_STATUSES as readonly string[]).includes(q.status))
    throw bad('status', `unknown status ${JSON.stringify(q.status)} (one of ${JOB_STATUSES.join(', ')})`);
  checkInt(q, 'limit', 1, SEARCH_LIMIT.max);
  checkInt(q, 'scanLimit', 1, SCAN_LIMIT.max);
  for (const field of ['createdFrom', 'createdTo', 'updatedFrom', 'updatedTo'] as const)
    checkInt(q, field, 0, Number.MAX_SAFE_INTEGER);
  if (q.cursor !== undefined && !CURSOR.test(q.cursor))
    throw bad('cursor', `not a cursor this search gave: ${JSON.stringify(q.cursor)}`);
  for (const f of q.where ?? []) checkFilter(f);
  return q;
}

/** `<queue>/<index position>/<offset>`: a queue's name never holds a '/'. */
export const CURSOR = /^([^/]{1,110})\/(\d{1,2})\/(\d{1,12})$/;
