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
const WHOLE_KEYS: readonly string[] = [WHOLE];

/**
 * What one entry logged of the context: each key's text (undefined: not logged, its value was
 * undefined), by position. Looked up by key only when a later entry compares with it (its Map,
 * made then): a resume logs one entry, and its ending none that carries the context.
 */
interface Logged {
  keys: readonly string[];
  texts: (string | undefined)[];
  byKey?: Map<string, string>;
}

function textsByKey(logged: Logged): Map<string, string> {
  if (logged.byKey) return logged.byKey;
  const byKey = new Map<string, string>();
  for (let i = 0; i < logged.keys.length; i++) {
    const text = logged.texts[i];
    if (text !== undefined) byKey.set(logged.keys[i]!, text);
  }
  return (logged.byKey = byKey);
}

export class ContextLog {
  /** Each top-level key's logged text as of the last entry; null before the run's first. */
  private last: Logged | null = null;

  /**
   * The fields to prefix a `state` entry with (`"ctx":{...},` and the like), '' when the context
   * did not change since the last entry.
   */
  fields(context: unknown): string {
    const record = isRecord(context);
    // A context that is not an object is logged whole, under a key no object has.
    const keys = record ? Object.keys(context) : WHOLE_KEYS;
    // The first entry of a run, or a context that turned from object to not or back: whole.
    const prev = this.last && textsByKey(this.last).has(WHOLE) === !record ? textsByKey(this.last) : null;
    const texts = new Array<string | undefined>(keys.length);
    let changed = '';
    let changes = 0;
    let budget = ENTRY_CAP;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const value = record ? context[key] : context;
      if (value === undefined) continue;
      const text = valueText(value, budget);
      texts[i] = text;
      if (prev?.get(key) === text) continue;
      budget -= text.length;
      const part = key === WHOLE ? text : `${JSON.stringify(key)}:${text}`;
      changed = changes++ === 0 ? part : `${changed},${part}`;
    }
    const next: Logged = { keys, texts };
    this.last = next;
    if (!prev) return record ? `"context":{${changed}},` : `"context":${changes ? changed : 'null'},`;
    const now = textsByKey(next);
    const gone = [...prev.keys()].filter((k) => !now.has(k));
    if (!record) return changes ? `"context":${changed},` : '';
    let out = changes ? `"ctx":{${changed}},` : '';
    if (gone.length) out += `"ctxGone":${JSON.stringify(gone)},`;
    return out;
  }
}
