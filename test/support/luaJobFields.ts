// Reads, from the text of a Lua script, the job-hash fields it writes: the field names of its
// HSET/HSETNX/HMSET calls, and of the argument lists those calls unpack (`args`, `set`,
// `fields`: built by table constructors, `x[#x + 1] = ...` pushes, or commit-12's `put`; and
// lcCompactOp.lua's `tail`, which its compactSet fills as `args`). A
// generated name (`'l' .. n`) is reported as its stem and `<n>` (`l<n>`). Used by
// test/store/recordSchema.test.ts to hold every written field to src/store/recordSchema.ts.

/** The argument lists the scripts build for an HSET on a job hash (`redis.call('HSET', jk, unpack(args))`). */
const LIST_VARS = ['args', 'set', 'fields', 'tail'];

/** Hashes that are not a job's, by the key expression a script passes (any file): fan-out records, the broken reasons, a queue's flow gate (flow-3.lua) its key gate's states (include/lcKeyGate.lua) and machine gates (include/lcGate.lua), the schedules (include/putSchedule.lua). */
const OTHER_HASH_KEYS = [
  'fk',
  'fanRecordKey',
  "LC.kp .. 'brokenwhy'",
  'flowKey',
  "LC.kp .. 'flow'",
  "kp .. 'flow'",
  "LC.kp .. 'ktat'",
  "kp .. 'mgates'",
  'defsKey',
  'revsKey',
  'stateKey',
  'factsKey',
];
/**
 * ... and by file, where a KEYS[n] is another hash (fanOpen-2.lua: KEYS[1] is the fan-out's), or a
 * parameter is (lcGcra.lua: `h`, the hash of a throttle's GCRA states, ktat or mtat).
 */
const OTHER_HASH_KEYS_BY_FILE: Record<string, string[]> = {
  'fanOpen-2.lua': ['KEYS[1]'],
  'lcGcra.lua': ['h'],
};

export interface WrittenField {
  field: string;
  file: string;
  line: number;
}

/** The code without comments (`--[[ ]]` blocks and `--` to the end of a line outside a string). */
function stripComments(lua: string): string {
  const noBlocks = lua.replace(/--\[\[[\s\S]*?\]\]/g, (m) => m.replace(/[^\n]/g, ' '));
  return noBlocks
    .split('\n')
    .map((line) => {
      let quote: string | null = null;
      for (let i = 0; i < line.length; i++) {
        const c = line[i]!;
        if (quote) {
          if (c === '\\') i++;
          else if (c === quote) quote = null;
        } else if (c === "'" || c === '"') quote = c;
        else if (c === '-' && line[i + 1] === '-') return line.slice(0, i);
      }
      return line;
    })
    .join('\n');
}

/** Splits `text` at its top-level commas (outside strings, parentheses and braces). */
function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if ('({['.includes(c)) depth++;
    else if (')}]'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).trim();
  if (last !== '') out.push(last);
  return out;
}

/** The text from `open` (an index of '(' or '{') to its matching closer, both excluded. */
function balanced(text: string, open: number): string {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if ('({'.includes(c)) depth++;
    else if (')}'.includes(c) && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error(`unbalanced bracket at ${open}`);
}

/** A field-name expression as a name: `'st'` -> st, `'l' .. ls` -> l<n>; null when not a name. */
function fieldName(expr: string): string | null {
  const lit = /^'([^']*)'$/.exec(expr);
  if (lit) return lit[1]!;
  const stem = /^'([A-Za-z]+)'\s*\.\./.exec(expr);
  return stem ? `${stem[1]}<n>` : null;
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/**
 * The job-hash fields `lua` writes. Throws when a write cannot be read (an HSET whose field is
 * neither a literal nor a known list): the check must see every write, never skip one.
 */
export function jobFieldsWritten(lua: string, file: string): WrittenField[] {
  const code = stripComments(lua);
  const out: WrittenField[] = [];
  const add = (expr: string, index: number, what: string): void => {
    const field = fieldName(expr);
    if (field === null)
      throw new Error(`${file}:${lineOf(code, index)}: cannot read the field of ${what}: ${expr}`);
    out.push({ field, file, line: lineOf(code, index) });
  };
  const others = [...OTHER_HASH_KEYS, ...(OTHER_HASH_KEYS_BY_FILE[file] ?? [])];
  // 1. redis.call('HSET', key, f, v, ...) (or include/redisCall.lua's redisCall) with literal pairs,
  // then maybe unpack(<list>).
  for (const m of code.matchAll(/(?:redis\.call|redisCall)\(\s*'(HSET|HSETNX|HMSET)'/gi)) {
    const [, key, ...rest] = splitTopLevel(balanced(code, m.index + m[0].indexOf('(')));
    if (others.includes(key!)) continue;
    const unpacked = rest.length % 2 === 1 ? /^unpack\((\w+)(?:,\s*1,\s*\w+)?\)$/.exec(rest.at(-1)!) : null;
    if (unpacked) {
      // The list's fields are read below, where it is built.
      if (!LIST_VARS.includes(unpacked[1]!))
        throw new Error(`${file}:${lineOf(code, m.index)}: HSET of an unknown list ${unpacked[1]}`);
      rest.pop();
    }
    for (let i = 0; i < rest.length; i += 2) add(rest[i]!, m.index, m[1]!);
  }
  // 2. Table constructors of the lists: `args = { 'm', v, ... }`, `set = x and { 'v', v } or {}`,
  //    and lcMove's fourth argument (`lcMove(j, to, {...}, { 'o', output })`).
  const vars = LIST_VARS.join('|');
  const ctor = new RegExp(
    `\\b(?:${vars})\\s*=\\s*[^{}\\n=]*?\\{|\\bset\\s*=\\s*\\{|\\},\\s*\\{(?=\\s*')`,
    'g',
  );
  for (const m of code.matchAll(ctor)) {
    const open = m.index + m[0].length - 1;
    const items = splitTopLevel(balanced(code, open));
    if (items[0]?.startsWith('unpack(')) continue; // watch-1's HMGET list: a copy of JOB_FIELDS
    if (items.every((x) => x === 'false')) continue; // a presized list: its places are read in 3b
    for (let i = 0; i < items.length; i += 2) add(items[i]!, m.index, 'a list constructor');
  }
  // 3. Pushes: on one line, `x[#x + 1] = f; x[#x + 1] = v` alternate field and value; a lone push
  //    of a name is a field (its value follows on the next line).
  const lines = code.split('\n');
  lines.forEach((text, n) => {
    for (const v of LIST_VARS) {
      const pushes = [
        ...text.matchAll(new RegExp(`\\b${v}\\[#${v} \\+ 1\\] = ([^;\\n]+?)\\s*(?:;|$| end\\b)`, 'g')),
      ];
      pushes.forEach((p, i) => {
        if (i % 2 === 1) return;
        const field = fieldName(p[1]!.trim());
        if (field !== null) out.push({ field, file, line: n + 1 });
      });
    }
    // 3b. Writes at a place (lcCompactOp.lua's presized list): `args[n + 1] = f; args[n + 2] = v`
    //    or `args[1] = f`: an odd place holds a field.
    for (const v of LIST_VARS) {
      for (const p of text.matchAll(
        new RegExp(`\\b${v}\\[(?:n \\+ )?(\\d+)\\] = ([^;\\n]+?)\\s*(?:;|$| end\\b)`, 'g'),
      )) {
        if (Number(p[1]) % 2 === 0) continue;
        const field = fieldName(p[2]!.trim());
        if (field !== null) out.push({ field, file, line: n + 1 });
      }
    }
    // 4. commit-12's put(set, 'field', value).
    for (const p of text.matchAll(/\bput\(\s*set\s*,\s*('[^']*')/g)) {
      out.push({ field: fieldName(p[1]!)!, file, line: n + 1 });
    }
  });
  return out;
}
