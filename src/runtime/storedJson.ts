// The one way a job's values (input, output, progress, snapshots, events) become stored JSON,
// through the value codec (valueCodec.ts: plain JSON as it is, a Date, Map, Set... in its
// envelope). A value it cannot store is the job's fault, not the worker's: it MUST fail that job
// alone, with an UnserializableSnapshotError that names the path to the value, and never throw
// where nothing catches it (a timer, an XState subscription), which would take the worker and
// all its jobs down.

import { UnserializableSnapshotError } from '../errors.js';
import { encodeValue } from '../store/valueCodec.js';

/** Deeper than this, the search for the culprit gives up (the error then names no path). */
const MAX_DEPTH = 200;

export interface Unserializable {
  path: string;
  reason: string;
}

/**
 * Stored JSON text of `value` (`undefined` becomes 'null'). Throws UnserializableSnapshotError
 * for the job's `what` ('output', 'snapshot'), with the culprit's path under `root` (default:
 * `what`).
 */
export function toStoredJson(value: unknown, what: string, root = what): string {
  try {
    return encodeValue(value, what, root);
  } catch (err) {
    if (err instanceof UnserializableSnapshotError) throw err;
    throw unserializable(value, what, err, root);
  }
}

/** The error for `value`, which JSON.stringify refused with `cause`. */
export function unserializable(
  value: unknown,
  what: string,
  cause: unknown,
  root = what,
  opaque?: (v: object) => boolean,
): UnserializableSnapshotError {
  const found = findUnserializable(value, root, opaque);
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new UnserializableSnapshotError(what, found ?? { reason }, { cause });
}

/**
 * The first value in `value` that JSON cannot hold, by path under `root`, and why. Objects
 * `opaque` accepts are not looked into (what the caller knows is stored in another form).
 */
export function findUnserializable(
  value: unknown,
  root = '',
  opaque?: (v: object) => boolean,
): Unserializable | undefined {
  const ancestors: object[] = [];
  const walk = (v: unknown, path: string, depth: number): Unserializable | undefined => {
    if (v === null || typeof v !== 'object' || depth > MAX_DEPTH || opaque?.(v)) return undefined;
    if (ancestors.includes(v)) return { path, reason: 'a circular reference' };
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      let out: unknown;
      try {
        out = (toJSON as (key: string) => unknown).call(v, '');
      } catch {
        return { path, reason: 'a toJSON() that throws' };
      }
      if (out !== v) return walk(out, path, depth + 1);
    }
    ancestors.push(v);
    try {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const r = walk(v[i], `${path}[${i}]`, depth + 1);
          if (r) return r;
        }
      } else {
        for (const key of Object.keys(v)) {
          const r = walk((v as Record<string, unknown>)[key], path ? `${path}.${key}` : key, depth + 1);
          if (r) return r;
        }
      }
    } finally {
      ancestors.pop();
    }
    return undefined;
  };
  return walk(value, root, 0);
}
