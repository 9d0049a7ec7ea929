// The stored form of a pipeline's machine snapshot (`w`) and its timers (`t`): XState's persisted
// snapshot and Machinist's timers less the fields that only hold their defaults, which every
// parked or finished pipeline would otherwise store (~100 B of a parked one's: `historyValue:{}`,
// `children:{}`, a timer's empty `source` and `target`, and an `after` timer's event, which is
// `{type: <its id>}`). THE ONE ENCODE AND DECODE of that form: a write of `w` / `t` is made
// compact here (pipeline/storedParts.ts says when: not before the data format that stops older
// workers), and every read puts the defaults back here (the worker's restore, decodeJob for the
// API, the dashboard and the CLI), in XState's key order, so what XState restores and what a
// reader sees are exactly as before. A full form (every record written before) is read as it
// is: the defaults are put back only where they are missing.
//
// Only the root machine's own fields are dropped: a child's persisted snapshot may be any actor
// logic's (a user's own logic may have a `value` and no `children`), which could not be told
// from a compact machine's on reading.

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{}` and nothing else (not an array, no keys). */
function isEmptyObject(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const _ in v) return false;
  return true;
}

/** A machine's persisted snapshot without `historyValue` and `children` when they are `{}`. */
export function compactMachine(persisted: unknown): unknown {
  if (!isObject(persisted)) return persisted;
  const dropHistory = isEmptyObject(persisted.historyValue);
  const dropChildren = isEmptyObject(persisted.children);
  if (!dropHistory && !dropChildren) return persisted;
  const out: Obj = {};
  for (const key of Object.keys(persisted)) {
    if ((key === 'historyValue' && dropHistory) || (key === 'children' && dropChildren)) continue;
    out[key] = persisted[key];
  }
  return out;
}

/**
 * The machine snapshot as XState persisted it: `historyValue` (after `value`) and `children`
 * (last) put back as `{}` where a compact form left them out. Anything that is not a machine
 * snapshot (no `status`, no `value`) is returned as it is.
 */
export function fullMachine(stored: unknown): unknown {
  if (!isObject(stored) || typeof stored.status !== 'string' || !('value' in stored)) return stored;
  const hasHistory = 'historyValue' in stored;
  if (hasHistory && 'children' in stored) return stored;
  const out: Obj = {};
  for (const key of Object.keys(stored)) {
    out[key] = stored[key];
    if (key === 'value' && !hasHistory) out.historyValue = {};
  }
  out.children ??= {};
  return out;
}

/** Timers without an empty `source` / `target`, nor an event that is `{type: <the timer's id>}`. */
export function compactTimers(timers: readonly unknown[]): unknown[] {
  return timers.map((t) => {
    if (!isObject(t)) return t;
    const out: Obj = {};
    for (const key of Object.keys(t)) {
      const v = t[key];
      if ((key === 'source' || key === 'target') && v === '') continue;
      if (key === 'event' && isOwnIdEvent(v, t.id)) continue;
      out[key] = v;
    }
    return out;
  });
}

function isOwnIdEvent(event: unknown, id: unknown): boolean {
  if (!isObject(event) || typeof id !== 'string' || event.type !== id) return false;
  for (const key in event) if (key !== 'type') return false;
  return true;
}

/** Timers as Machinist stores them in full (`{id, source, target, event, dueAt}`); anything
 * that is not an array of them is returned as it is. */
export function fullTimers(stored: unknown): unknown {
  if (!Array.isArray(stored)) return stored;
  let out: unknown[] | undefined;
  for (let i = 0; i < stored.length; i++) {
    const t: unknown = stored[i];
    if (!isObject(t) || typeof t.id !== 'string' || ('source' in t && 'target' in t && 'event' in t))
      continue;
    out ??= stored.slice();
    const full: Obj = { id: t.id, source: t.source ?? '', target: t.target ?? '' };
    full.event = 'event' in t ? t.event : { type: t.id };
    for (const key of Object.keys(t)) if (!(key in full)) full[key] = t[key];
    out[i] = full;
  }
  return out ?? stored;
}
