// Renames states in a persisted machine snapshot, for a `migrate` (migrate.ts): in its `value`
// AND in its `historyValue`, where each history state keeps the states it remembers by id
// (`<machine id>.<path>`). A migrate that renames the value only leaves the history naming the
// old ids, which XState drops on restore: a return to the history state would then go to its
// initial child, with no error.

/** A persisted snapshot's parts renameStates reads; the others are kept as they are. */
interface Renamable {
  value?: unknown;
  historyValue?: Record<string, { id: string }[]>;
}

/** Old and new path of one rename, as segments; both under one parent. */
interface Rename {
  from: string[];
  to: string;
}

function parse(renames: Record<string, string>): Rename[] {
  return Object.entries(renames).map(([from, to]) => {
    const a = from.split('.');
    const b = to.split('.');
    if (
      a.length !== b.length ||
      a.some((s) => s === '') ||
      b.some((s) => s === '') ||
      a.slice(0, -1).join('.') !== b.slice(0, -1).join('.')
    )
      throw new TypeError(
        `renameStates: '${from}' -> '${to}' must rename one state in place (the same parent path, dotted, from the root)`,
      );
    return { from: a, to: b.at(-1)! };
  });
}

/** The value with the state at `r.from` renamed (value: a string or nested objects). */
function renameInValue(value: unknown, r: Rename, depth = 0): unknown {
  const key = r.from[depth]!;
  const last = depth === r.from.length - 1;
  if (typeof value === 'string') return last && value === key ? r.to : value;
  if (!value || typeof value !== 'object' || !Object.hasOwn(value, key)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k !== key) out[k] = v;
    else if (last) out[r.to] = v;
    else out[k] = renameInValue(v, r, depth + 1);
  }
  return out;
}

/** A state id (`<machine id>.<path>`) with the renamed segment replaced; others as they are. */
function renameInId(id: string, r: Rename): string {
  const parts = id.split('.');
  // parts[0] is the machine's id; a state with its own `id` has no path to rename.
  for (let i = 0; i < r.from.length; i++) if (parts[i + 1] !== r.from[i]) return id;
  parts[r.from.length] = r.to;
  return parts.join('.');
}

/**
 * The persisted snapshot with states renamed, in its `value` and in the states its history
 * states remember (`historyValue`). Paths are dotted from the root, as in `value`: `'review'`,
 * `'work.review'`; each renames one state in place. For a child machine's states, rename its
 * snapshot (`snapshot.children[id].snapshot`).
 * @example
 * migrate: (snapshot, fromVersion) =>
 *   fromVersion === 1 ? renameStates(snapshot, { 'work.review': 'work.checking' }) : snapshot
 */
export function renameStates<T>(snapshot: T, renames: Record<string, string>): T {
  const list = parse(renames);
  const s = snapshot as Renamable;
  let value = s.value;
  for (const r of list) value = renameInValue(value, r);
  let historyValue = s.historyValue;
  if (historyValue && typeof historyValue === 'object') {
    const renamed: Record<string, { id: string }[]> = {};
    for (const [key, items] of Object.entries(historyValue)) {
      let k = key;
      for (const r of list) k = renameInId(k, r);
      renamed[k] = (Array.isArray(items) ? items : []).map((item) => {
        let id = item.id;
        for (const r of list) id = renameInId(id, r);
        return { ...item, id };
      });
    }
    historyValue = renamed;
  }
  return { ...s, value, ...(historyValue !== undefined ? { historyValue } : {}) } as T;
}
