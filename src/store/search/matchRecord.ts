// Whether a job's record answers a search (searchQuery.ts): the one matcher both stores' walks
// use (searchPages.ts), so a filter means the same on Redis and in memory.

import type { JobRecord } from '../jobRecord.js';
import type { FieldFilter, SearchQuery } from './searchQuery.js';

/** The value at a dotted path (`input.items.0.sku`), or undefined. */
export function valueAt(rec: JobRecord, path: string): unknown {
  const [root, ...rest] = path.split('.');
  let v: unknown = (rec as unknown as Record<string, unknown>)[root!];
  for (const part of rest) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** A number, or a text that is one (`"42"`), as a number; else undefined. */
function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

function equals(field: unknown, value: FieldFilter['value']): boolean {
  // Numbers compared as numbers: `= 42` finds 42 and "42", `= 4.0` finds 4.
  if (typeof value === 'number') return asNumber(field) === value;
  if (value === null) return field === null || field === undefined;
  return field === value;
}

export function matchFilter(rec: JobRecord, f: FieldFilter): boolean {
  const field = valueAt(rec, f.path);
  switch (f.op) {
    case '=':
      return equals(field, f.value);
    case '!=':
      return !equals(field, f.value);
    case 'contains':
      if (Array.isArray(field)) return field.some((x) => equals(x, f.value));
      return typeof field === 'string' && field.includes(String(f.value));
    case 'startsWith':
      return (
        (typeof field === 'string' || typeof field === 'number') && String(field).startsWith(String(f.value))
      );
    default: {
      const n = asNumber(field);
      const v = f.value as number;
      if (n === undefined) return false;
      return f.op === '>' ? n > v : f.op === '<' ? n < v : f.op === '>=' ? n >= v : n <= v;
    }
  }
}

/** A state value's leaf paths: 'idle' -> ['idle'], { review: 'waiting' } -> ['review.waiting']. */
export function statePaths(state: unknown, prefix = ''): string[] {
  if (typeof state === 'string') return [prefix + state];
  if (state === null || typeof state !== 'object') return [];
  return Object.entries(state as Record<string, unknown>).flatMap(([k, v]) => {
    const inner = statePaths(v, `${prefix}${k}.`);
    return inner.length > 0 ? inner : [prefix + k];
  });
}

const inRange = (t: number | null, from?: number, to?: number): boolean =>
  (from === undefined || (t !== null && t >= from)) && (to === undefined || (t !== null && t <= to));

export function matchRecord(rec: JobRecord, q: SearchQuery): boolean {
  if (q.idPrefix !== undefined && !rec.id.startsWith(q.idPrefix)) return false;
  if (q.machine !== undefined && rec.machine !== q.machine) return false;
  if (q.status !== undefined && rec.status !== q.status) return false;
  if (!inRange(rec.createdAt, q.createdFrom, q.createdTo)) return false;
  if (!inRange(rec.updatedAt, q.updatedFrom, q.updatedTo)) return false;
  if (q.state !== undefined) {
    const s = q.state;
    if (!statePaths(rec.state).some((p) => p === s || p.startsWith(s + '.'))) return false;
  }
  return (q.where ?? []).every((f) => matchFilter(rec, f));
}
