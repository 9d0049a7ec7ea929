// The constants the Lua scripts share with TypeScript, generated into each script when it is
// loaded: scripts.ts puts a `local NAME = <value>` line before the script for each constant
// its code names, so a Lua file uses BAND or FINAL as a name it never defines, and nothing is
// copied by hand. A local of a literal costs what the hand-written one did, and a script that
// does not name a table does not build it.

import { EDGES, FINAL, UPDATABLE } from '../lifecycleTable.js';
import {
  BAND,
  FLEET_GONE_KEPT_MS,
  LOG_CAP,
  REAPED_CAP,
  REAPED_KEPT_MS,
  RESULT_TTL_MS,
} from '../storeConstants.js';
import { PRIORITY_BAND } from '../types.js';
import { JOB_FIELDS } from '../decodeJob.js';
import { BASE_DEFAULTS } from '../recordSchema.js';
import { SERIES_BUCKETS, SERIES_KEEP_MS, SERIES_RUN_FIELDS, SERIES_WAIT_FIELDS } from '../queueSeries.js';
import {
  COMMIT_COMPACT,
  COMMIT_COMPACT_RUN,
  COMMIT_OP_FIELDS,
  COMMIT_OP_TYPES,
  COMMIT_PLAIN_DONE,
} from './commitOpFields.js';

type LuaValue =
  number | string | boolean | readonly LuaValue[] | ReadonlySet<string> | { readonly [k: string]: LuaValue };

export const LUA_CONSTANTS: Readonly<Record<string, LuaValue>> = {
  BAND,
  LOG_CAP,
  RESULT_TTL_MS,
  /** The fleet: what the reaper remembers, and how long a gone supervisor stays listed. */
  REAPED_KEPT_MS,
  REAPED_CAP,
  FLEET_GONE_KEPT_MS,
  /** THE DEFAULTS LEFT OUT: the version and max attempts a record without `v` or `ma` holds, as text. */
  DEFAULT_V: String(BASE_DEFAULTS.version),
  DEFAULT_MA: String(BASE_DEFAULTS.maxAttempts),
  /** The record fields a reader decodes, in decodeJob's order (pushResult sends them). */
  JOB_FIELDS,
  /** The lifecycle table (from -> to -> event) and its status sets, as MemoryStore's. */
  EDGES,
  FINAL,
  UPDATABLE,
  /** A commit op's fields per kind in wire order, what each holds, the plain done's kind. */
  COMMIT_OP_FIELDS,
  COMMIT_OP_TYPES,
  COMMIT_PLAIN_DONE,
  /** The compact checkpoint and done: their letter -> { kind, fields } (wire order, no version). */
  COMMIT_COMPACT,
  /** A run of compact ops sharing one set of shared values: its kind on the wire. */
  COMMIT_COMPACT_RUN,
  /** A band by its text on the wire ('0'..'3'), for the scripts that parse one. */
  /** A queue's minute tallies (queueSeries.ts): how many latency bounds, the fields, how long kept. */
  SERIES_BUCKETS,
  SERIES_KEEP_MS,
  SERIES_WAIT_FIELDS,
  SERIES_RUN_FIELDS,
  BANDS: Object.fromEntries(Object.values(PRIORITY_BAND).map((b) => [String(b), b])),
};

const IDENT = /^[A-Za-z_]\w*$/;

function luaString(s: string): string {
  if (!/^[\w .:,-]*$/.test(s)) throw new Error(`lua constant: unsupported string ${JSON.stringify(s)}`);
  return `'${s}'`;
}

/** A TypeScript value as a Lua literal: arrays as lists, sets as { name = true }, objects as tables. */
export function toLua(v: LuaValue): string {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new Error(`lua constant: ${v} is not a safe integer`);
    return String(v);
  }
  if (typeof v === 'string') return luaString(v);
  if (typeof v === 'boolean') return String(v);
  const key = (k: string): string => (IDENT.test(k) ? k : `[${luaString(k)}]`);
  if (v instanceof Set) return `{ ${[...v].map((k: string) => `${key(k)} = true`).join(', ')} }`;
  if (Array.isArray(v)) return `{ ${v.map(toLua).join(', ')} }`;
  const entries = Object.entries(v as Record<string, LuaValue>);
  return entries.length === 0 ? '{}' : `{ ${entries.map(([k, x]) => `${key(k)} = ${toLua(x)}`).join(', ')} }`;
}

/** Lua code without its comments and with its string literals emptied ('FINAL' names nothing). */
export function codeOf(lua: string): string {
  return lua
    .replace(/--\[\[[\s\S]*?\]\]/g, '')
    .split('\n')
    .map((line) => {
      let out = '';
      let quote: string | null = null;
      for (let i = 0; i < line.length; i++) {
        const c = line[i]!;
        if (quote) {
          if (c === '\\') i++;
          else if (c === quote) {
            quote = null;
            out += c;
          }
        } else if (c === "'" || c === '"') {
          quote = c;
          out += c;
        } else if (c === '-' && line[i + 1] === '-') return out;
        else out += c;
      }
      return out;
    })
    .join('\n');
}

/**
 * The `local NAME = <value>` lines of the constants `lua`'s code names. A script that defines one
 * itself is refused: that would be the hand-kept copy this replaces.
 */
export function constantsFor(lua: string): string {
  const code = codeOf(lua);
  const defined = (name: string): boolean => new RegExp(`local (\\w+,\\s*)*${name}\\b`).test(code);
  return Object.entries(LUA_CONSTANTS)
    .filter(([name]) => new RegExp(`(?<![\\w.])${name}(?!\\w)`).test(code))
    .map(([name, value]) => {
      if (defined(name))
        throw new Error(`lua: ${name} is generated from TypeScript (luaConstants.ts); do not define it`);
      return [name, value] as const;
    })
    .map(([name, value]) => `local ${name} = ${toLua(value)}\n`)
    .join('');
}
