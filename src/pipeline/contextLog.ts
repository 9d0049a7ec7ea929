// The context kept in the audit log, so the dashboard's scrubber can show it as it was when the
// job entered each state. A run's first `state` entry carries every top-level key of the context
// (`context`), each later one only what changed since the entry before (`ctx`: changed keys,
// `ctxGone`: removed ones), and nothing when the context did not change.
//
// THE COST, per state entry: the changed keys' JSON, each value at most VALUE_CAP characters
// and the entry at most about ENTRY_CAP; a value past either is logged as a short note saying it
// was not kept (its size), so a large document in the context never lands in the log. The
// fields go BEFORE "state" in the entry: compactStates (src/store/redis/encodeOps.ts) folds the
// bare states that follow an entry into it, never one that carries context.

import { encodeValue } from '../store/valueCodec.js';

export const VALUE_CAP = 512;
export const ENTRY_CAP = 2048;

/** The note logged for a value the log does not keep (what the scrubber then shows). */
export function notKept(chars: number): string {
  return `(not kept in the audit log: ${chars} characters of JSON)`;
}

function valueText(value: unknown, budget: number): string {
  let text: string | undefined;
  try {
    // As the checkpoint stores it: a Date (say) in the codec's envelope, as HTTP readers get it.
    text = encodeValue(value, 'context');
  } catch {
    // The live context, not the persisted one: an actor ref (which the snapshot stores as a
    // reference) is logged as its toJSON gives it. What the checkpoint cannot store it reports
    // itself; the log only notes it.
    try {
      text = JSON.stringify(value);
    } catch {
      return JSON.stringify('(not kept in the audit log: not JSON)');
    }
  }
  if (text === undefined) return 'null';
  return text.length > Math.min(VALUE_CAP, budget) ? JSON.stringify(notKept(text.length)) : text;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const WHOLE = '\u0000';

export class ContextLog {
  /** Each top-level key's logged text as of the last entry; null before the run's first. */
  private last: Map<string, string> | null = null;

  /**
   * The fields to prefix a `state` entry with (`"ctx":{...},` and the like), '' when the context
   * did not change since the last entry.
   */
  fields(context: unknown): string {
    // A context that is not an object is logged whole, under a key no object has.
    const entries: [string, unknown][] = isRecord(context) ? Object.entries(context) : [[WHOLE, context]];
    // The first entry of a run, or a context that turned from object to not or back: whole.
    const prev = this.last && this.last.has(WHOLE) === !isRecord(context) ? this.last : null;
    const next = new Map<string, string>();
    const changed: string[] = [];
    let budget = ENTRY_CAP;
    for (const [key, value] of entries) {
      if (value === undefined) continue;
      const text = valueText(value, budget);
      next.set(key, text);
      if (prev?.get(key) === text) continue;
      budget -= text.length;
      changed.push(key === WHOLE ? text : `${JSON.stringify(key)}:${text}`);
    }
    this.last = next;
    if (!prev) {
      return isRecord(context) ? `"context":{${changed.join(',')}},` : `"context":${changed[0] ?? 'null'},`;
    }
    const gone = [...prev.keys()].filter((k) => !next.has(k));
    if (!isRecord(context)) return changed.length ? `"context":${changed[0]},` : '';
    let out = changed.length ? `"ctx":{${changed.join(',')}},` : '';
    if (gone.length) out += `"ctxGone":${JSON.stringify(gone)},`;
    return out;
  }
}
