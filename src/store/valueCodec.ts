// THE one encoding of what a job holds (input, context and snapshots, events, progress, output,
// children's outputs). THE ROUND-TRIP RULE: a value comes back exactly as it was stored, or it
// is refused when it is stored, naming its path. It MUST NEVER come back silently changed (a
// Date as a string, a Map as `{}`): that breaks the job only on its first restore, in the
// user's own code.
//
// Plain JSON is stored as plain JSON, exactly as before this codec (other languages, the
// dashboard and `redis-cli` read it). A value plain JSON cannot carry (Date, Map, Set, BigInt,
// RegExp, URL, Error, typed arrays, undefined in an array, NaN, Infinity, -0) is stored as a
// superjson envelope, `{"$codec":"superjson","json":<superjson's JSON form>,"meta":<how to
// revive it>}`, decided by one walk over the value (`classify`) that costs about what the
// JSON.stringify after it costs, so a plain checkpoint pays one walk more and no superjson.
// Records written before the codec hold no envelope and read as they always did.
//
// Refused (UnserializableSnapshotError, not retried): a class instance (superjson would store
// its fields as a plain object, and every method and `instanceof` would be gone on restore), a
// function or symbol value (JSON drops them), an invalid Date.

import { SuperJSON } from 'superjson';
import { MachinistError, UnserializableSnapshotError } from '../errors.js';
import { CODE } from '../errorCodes.js';

/** The key that marks an envelope; its value names the codec. */
export const CODEC_KEY = '$codec';
const CODEC = 'superjson';

/** Deeper than this a value is refused (a cycle, or nesting no job needs: inputLimits.ts). */
const MAX_DEPTH = 1000;

// A private instance: registrations a user makes on superjson's default one change nothing here.
const sj = new SuperJSON();
// An Error keeps its name and message (superjson's rule) and its `code`, which most error
// handling reads; its class and stack are not kept (docs/concepts.md says so).
sj.allowErrorProps('code');

/** Built-ins superjson revives as themselves: an object of exactly one of these classes. */
const REVIVED = new Set<unknown>([
  Date.prototype,
  Map.prototype,
  Set.prototype,
  RegExp.prototype,
  URL.prototype,
  Int8Array.prototype,
  Uint8Array.prototype,
  Uint8ClampedArray.prototype,
  Int16Array.prototype,
  Uint16Array.prototype,
  Int32Array.prototype,
  Uint32Array.prototype,
  Float32Array.prototype,
  Float64Array.prototype,
  BigInt64Array.prototype,
  BigUint64Array.prototype,
]);

export interface Refusal {
  path: string;
  reason: string;
}

/** Why classify stopped: the value cannot be stored, at `path`. */
class Refused extends MachinistError {
  constructor(readonly refusal: Refusal) {
    super(CODE.UNSERIALIZABLE_SNAPSHOT, refusal.reason);
  }
}

/**
 * Paths are built only to name a refused value: the walk runs first without them (`track`
 * false: every path is ''), and again with them only when it refuses, since a path string per
 * value would cost the checkpoint path about half again (bench/codec.ts).
 */
let track = false;
const join = (path: string, key: string) => (!track ? '' : path ? `${path}.${key}` : key);
const at = (path: string, step: string) => (track ? path + step : '');
const className = (v: object) => (v.constructor as { name?: string } | undefined)?.name || 'anonymous';

/**
 * Whether `value` needs the envelope (true) or is plain JSON (false); throws Refused for what
 * neither can carry. Object properties that are `undefined` are plain (JSON drops the key, and
 * reading it gives `undefined` again), as are `toJSON`-less plain objects and arrays.
 */
function classify(value: unknown, path: string, depth: number, inArray: boolean): boolean {
  // Primitives first, without a look at the object machinery: most of a context is primitives.
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return false;
    case 'number':
      return !Number.isFinite(value) || Object.is(value, -0);
    case 'bigint':
      return true;
    case 'undefined':
      return inArray;
    case 'function':
      throw new Refused({ path, reason: 'a function' });
    case 'symbol':
      throw new Refused({ path, reason: 'a symbol' });
    default:
      break;
  }
  if (value === null) return false;
  const o = value as object;
  // As JSON.stringify does: the objects above this one, a cycle being one of them again.
  if (ancestors.includes(o)) throw new Refused({ path, reason: 'a circular reference' });
  if (depth > MAX_DEPTH) throw new Refused({ path, reason: `nesting deeper than ${MAX_DEPTH} levels` });
  ancestors.push(o);
  try {
    return classifyObject(o, path, depth);
  } finally {
    ancestors.pop();
  }
}

/** The objects on the path from the root to the one being classified. */
const ancestors: object[] = [];

function classifyObject(o: object, path: string, depth: number): boolean {
  const proto = Object.getPrototypeOf(o) as unknown;
  let special = false;
  let fields: object = o;
  if (proto === Object.prototype || proto === null || Array.isArray(o)) {
    if (Array.isArray(o) && proto !== Array.prototype)
      throw new Refused({ path, reason: `a class instance (${className(o)})` });
  } else if (REVIVED.has(proto)) {
    if (o instanceof Date && Number.isNaN(o.getTime()))
      throw new Refused({ path, reason: 'an invalid Date' });
    if (o instanceof Map) return classifyMap(o, path, depth);
    if (o instanceof Set) return classifySet(o, path, depth);
    return true;
  } else if (o instanceof Error) {
    // Only its name, message and code are stored: those are what is looked into.
    special = true;
    fields = { code: (o as { code?: unknown }).code };
  } else {
    throw new Refused({ path, reason: `a class instance (${className(o)})` });
  }
  if (Array.isArray(fields)) {
    for (let i = 0; i < fields.length; i++)
      if (classify(fields[i], at(path, `[${i}]`), depth + 1, true)) special = true;
    return special;
  }
  for (const key in fields) {
    if (classify((fields as Record<string, unknown>)[key], join(path, key), depth + 1, false)) special = true;
  }
  return special;
}

function classifyMap(m: Map<unknown, unknown>, path: string, depth: number): boolean {
  let i = 0;
  for (const [k, v] of m) {
    classify(k, at(path, `[key ${i}]`), depth + 1, true);
    classify(
      v,
      at(path, typeof k === 'string' ? `.get(${JSON.stringify(k)})` : `[value ${i}]`),
      depth + 1,
      true,
    );
    i++;
  }
  return true;
}

function classifySet(s: Set<unknown>, path: string, depth: number): boolean {
  let i = 0;
  for (const v of s) classify(v, at(path, `[${i++}]`), depth + 1, true);
  return true;
}

/** classify from the root: the fast walk, then, when it refuses, the walk that names the path. */
function classifyRoot(value: unknown, root: string): boolean {
  try {
    return classify(value, '', 0, false);
  } catch (err) {
    ancestors.length = 0;
    if (!(err instanceof Refused)) throw err;
  }
  track = true;
  try {
    classify(value, root, 0, false);
  } finally {
    track = false;
    ancestors.length = 0;
  }
  throw new Error('valueCodec: the second walk did not refuse what the first did'); // cannot happen
}

/**
 * The JSON text of `value` when encodeValue would write it as plain JSON inside a larger value
 * that is plain too, `depth` levels below that value's root (the nesting limit counts from
 * there); else undefined: it needs the envelope, or cannot be stored (encodeValue of the whole
 * value says why). For a writer that makes the text of a larger value from its parts.
 */
export function plainJsonText(value: unknown, depth: number): string | undefined {
  try {
    return classify(value, '', depth, false) ? undefined : JSON.stringify(value);
  } catch {
    ancestors.length = 0;
    return undefined;
  }
}

/**
 * Where `value` holds something the codec cannot store (by path under `root`), and why; undefined
 * when it can be stored. For the error of a value JSON.stringify then refused anyway.
 */
export function findUnstorable(value: unknown, root = ''): Refusal | undefined {
  try {
    classifyRoot(value, root);
    return undefined;
  } catch (err) {
    if (err instanceof Refused) return err.refusal;
    throw err;
  }
}

/**
 * The stored JSON text of `value` (`undefined` stores as `null`): plain JSON when it is plain
 * JSON, else the superjson envelope. Throws UnserializableSnapshotError for the job's `what`
 * ('output', 'snapshot', 'input'...), naming the culprit's path under `root` (default `what`).
 * JSON.stringify's own refusals (a cycle, a throwing toJSON) come back as its error.
 */
export function encodeValue(value: unknown, what: string, root = what): string {
  let envelope: boolean;
  try {
    envelope = classifyRoot(value, root);
  } catch (err) {
    if (err instanceof Refused) throw new UnserializableSnapshotError(what, err.refusal);
    throw err;
  }
  if (!envelope && !markedLikeEnvelope(value)) return JSON.stringify(value) ?? 'null';
  return JSON.stringify(envelopeOf(value));
}

function envelopeOf(value: unknown): object {
  const { json, meta } = sj.serialize(withoutUndefinedProps(value));
  return meta === undefined ? { [CODEC_KEY]: CODEC, json } : { [CODEC_KEY]: CODEC, json, meta };
}

/**
 * The value with the `undefined` properties of its plain objects left out, as JSON leaves them
 * out: one rule whether or not a value needs the envelope (superjson would keep them), so one
 * machine state is stored alike by both runtimes. Values classify accepted: no cycles.
 */
function withoutUndefinedProps(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(withoutUndefinedProps);
  if (v instanceof Map)
    return new Map([...v].map(([k, x]) => [withoutUndefinedProps(k), withoutUndefinedProps(x)]));
  if (v instanceof Set) return new Set([...v].map(withoutUndefinedProps));
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = proto === null ? (Object.create(null) as Record<string, unknown>) : {};
  for (const key in v) {
    const x = (v as Record<string, unknown>)[key];
    if (x !== undefined) out[key] = withoutUndefinedProps(x);
  }
  return out;
}

/** A plain object that has the marker key itself is wrapped, so it cannot read as an envelope. */
const markedLikeEnvelope = (v: unknown) => v !== null && typeof v === 'object' && Object.hasOwn(v, CODEC_KEY);

/** Whether a parsed value is an envelope. */
function isEnvelope(v: unknown): v is { json: unknown; meta?: unknown } {
  return v !== null && typeof v === 'object' && (v as Record<string, unknown>)[CODEC_KEY] === CODEC;
}

/**
 * A stored value (parsed JSON) as the job held it: an envelope revived, anything else as it is
 * (a record written before the codec, or plain JSON).
 */
export function reviveValue(parsed: unknown): unknown {
  if (!isEnvelope(parsed)) return parsed;
  return sj.deserialize({ json: parsed.json as never, meta: parsed.meta as never });
}

/** A stored value's text as the job held it (see reviveValue). */
export function decodeValue(text: string): unknown {
  return reviveValue(JSON.parse(text));
}

/**
 * A value as a JSON reader gets it (the HTTP API, SSE): plain JSON as it is; anything else as the
 * envelope, so a reader sees the JSON form (a Date as its ISO string, a Map as [key, value]
 * pairs) and can revive it with superjson from `meta`. Never throws: what cannot be stored was
 * never stored.
 */
export function wireValue(value: unknown): unknown {
  try {
    if (!classifyRoot(value, '') && !markedLikeEnvelope(value)) return value;
  } catch {
    return value;
  }
  return envelopeOf(value);
}

/** The values of a job record (input, context, progress, output) as a JSON reader gets them. */
export function wireRecord<T extends object>(record: T): T {
  const r = record as Record<string, unknown>;
  return {
    ...record,
    input: wireValue(r.input),
    context: wireValue(r.context),
    progress: wireValue(r.progress),
    output: wireValue(r.output),
  };
}
