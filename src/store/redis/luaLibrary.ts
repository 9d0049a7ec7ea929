// The Lua scripts of lua/ as ONE Redis Functions library (FUNCTION LOAD, then FCALL): the same
// files the EVALSHA path sends (scripts.ts), assembled so that what every call of a script used
// to rebuild (the constants' tables, each include's closures) is made once, when the library
// loads. Each script becomes one function whose callback is the script's text unchanged.
//
// THE LIBRARY, top to bottom:
//   #!lua name=machinist_<hash>       the hash of the rest: two Machinist versions on one Redis
//                                     (a rolling deploy) each run their own code
//   local KEYS, ARGV                  set by every callback from its arguments, so scripts and
//                                     includes name them as in EVAL (Functions have no such globals)
//   local <constants>                 luaConstants.ts, every one any script or include names
//   <includes>                        each once, every one after the includes it names
//   do local function reset() ... end; redis.register_function{...} end   per script
//
// PER-CALL STATE: an include's top-level `local x = <value>` that is not a function may be
// changed by a call (LC, the batch tables, caches keyed by this call's clock): under EVAL it was
// made anew by every call, here it would outlive the call. So each callback first runs its
// includes' such statements again as assignments (`reset`), at its start, so that a call that
// failed half-way leaves nothing to the next. Only an immutable value (a number, a string,
// math.floor ...) that nothing assigns again is made once. Any other top-level statement in an
// include is refused: the assembly could not tell which side of the line it belongs on.
//
// LUA 5.1's LIMITS hold per function: 200 locals (the library's top level holds the constants
// and every include's names) and 60 upvalues (a callback's: KEYS, ARGV, reset and each library
// name its script uses). test/redis/functions.test.ts loads the library on a real Redis, so an
// include that breaks one fails a test.
//
// LUA'S GARBAGE COLLECTOR is left at its defaults (setpause 200, setstepmul 200), on purpose.
// Redis refuses `collectgarbage` in the top-level chunk (at FUNCTION LOAD only `redis` is a
// global); a function may call it, but the setting then holds for every library in the server's
// one functions VM (not EVAL's), and outlives FUNCTION FLUSH. Measured on Redis 7.0 under
// callgrind (bench/probes/commitOps.ts --jobs 20000 --rounds 1 --cases "plain,minimal plain"):
// the collector is ~3% of Redis's instructions per no-op job, over half of that freeing the
// calls' garbage, which every setting pays; marking the VM is 0.3%. setpause 1000 ran 5x fewer
// cycles and saved 0.2% (0.7% with ten libraries loaded, a 2.9 MB VM), setstepmul 100 under
// 0.5%; stopping it in each call with a full collect past 4 MB cost 0.5% more, and stopping it
// outright grew the VM to 100 MB over 100,000 jobs (Redis's own step, every 50 calls, cannot
// keep up). What lowers it is fewer allocations per job.

import { createHash } from 'node:crypto';
import { codeOf, constantsFor, LUA_CONSTANTS } from './luaConstants.js';
import { includesOf, resolveIncludes, withoutIncludeLines } from './luaIncludes.js';

/** A script as lua/ holds it: `<name>-<numKeys>.lua`, its text with its include lines. */
export interface ScriptFile {
  name: string;
  numberOfKeys: number;
  text: string;
}

export interface LuaLibrary {
  /** `machinist_<hash>`: the library's name in FUNCTION LIST / FUNCTION DELETE. */
  readonly name: string;
  /** The FUNCTION LOAD payload. */
  readonly code: string;
  /** The function of script `name` (`machinist_<hash>_<name>`). */
  functionName(script: string): string;
}

/** A top-level statement of an include. */
interface Statement {
  kind: 'function' | 'declare' | 'state' | 'once';
  names: string[];
  text: string;
}

const HASH_PLACEHOLDER = '__MACHINIST_LIB__';

/**
 * A script's function flags, from a `--- @flags a b` line (a comment under EVAL). Without one a
 * function may write and is refused whole at maxmemory (OOM); `allow-oom` is for the scripts
 * that only delete (retention), which must run at maxmemory to free it, as they did under EVAL
 * (whose OOM check comes at the first command that may grow memory).
 */
const FLAGS_LINE = /^--- @flags ([\w -]+)$/m;
const KNOWN_FLAGS = new Set(['no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys']);

function flagsOf(script: ScriptFile): string[] {
  const flags = FLAGS_LINE.exec(script.text)?.[1]?.trim().split(/\s+/) ?? [];
  for (const f of flags)
    if (!KNOWN_FLAGS.has(f)) throw new Error(`lua script ${script.name}: unknown function flag '${f}'`);
  return flags;
}

/**
 * An immutable literal: a number, a string, a boolean. (Not `math.floor`: Redis loads a library
 * with no globals but `redis`, so such a value is read by the callback, as state.)
 */
const IMMUTABLE = /^(?:-?\d+(?:\.\d+)?|'[^'\\]*'|"[^"\\]*"|true|false)$/;

function splitValues(list: string): string[] {
  return list.split(',').map((v) => v.trim());
}

/** Whether `code` (comments and strings emptied) assigns `name` anywhere besides declaring it. */
function assigns(code: string, name: string): boolean {
  const re = new RegExp(`(?<![\\w.:])${name}\\s*(?:,\\s*[\\w.]+\\s*)*=(?!=)`, 'g');
  for (const m of code.matchAll(re)) {
    const before = code.slice(Math.max(0, m.index - 200), m.index);
    // `local a, b = ...` declares: the statement's own line starts with `local`.
    if (/(?:^|\n)\s*local [\w, ]*$/.test(before)) continue;
    return true;
  }
  return false;
}

/**
 * An include's top-level statements: a line that starts at column 0 (not a comment, not the
 * `end` or `}` closing the statement above) opens one; the lines below it, up to the next, are
 * its body.
 */
export function topLevelStatements(include: string, lua: string): Statement[] {
  const lines = withoutIncludeLines(lua).split('\n');
  const starts: number[] = [];
  let inComment = false;
  lines.forEach((line, i) => {
    if (inComment) {
      if (line.includes(']]')) inComment = false;
      return;
    }
    if (line.startsWith('--[[')) {
      inComment = !line.includes(']]');
      return;
    }
    if (/^(--|\s|$|end\b|[}\])])/.test(line)) return;
    starts.push(i);
  });
  return starts.map((start, k) => {
    let end = (starts[k + 1] ?? lines.length) - 1;
    while (end > start && /^(--|\s*$)/.test(lines[end]!)) end--;
    const text = lines.slice(start, end + 1).join('\n');
    const first = lines[start]!;
    let m: RegExpExecArray | null;
    if ((m = /^local function (\w+)/.exec(first))) return { kind: 'function', names: [m[1]!], text };
    if ((m = /^(\w+) = function\b/.exec(first))) return { kind: 'function', names: [m[1]!], text };
    if ((m = /^local (\w+(?:,\s*\w+)*)\s*$/.exec(first)) && start === end)
      return { kind: 'declare', names: splitValues(m[1]!), text };
    if ((m = /^local (\w+(?:,\s*\w+)*)\s*=\s*([\s\S]*)$/.exec(text))) {
      const names = splitValues(m[1]!);
      const values = codeOf(m[2]!).trim();
      const immutable = start === end && splitValues(values).every((v) => IMMUTABLE.test(v));
      return { kind: immutable ? 'once' : 'state', names, text };
    }
    throw new Error(
      `lua include ${include}: top-level statement not understood by the library assembly (luaLibrary.ts): ${first}`,
    );
  });
}

/** The library made of `scripts`; `read(name)` gives an include's text (undefined: none). */
export function buildLibrary(scripts: ScriptFile[], read: (name: string) => string | undefined): LuaLibrary {
  const allIncludes = [...new Set(scripts.flatMap((s) => includesOf(s.text)))];
  const order = resolveIncludes('library', allIncludes.map((n) => `--- @include "${n}"\n`).join(''), read);
  const statements = new Map(order.map((n) => [n, topLevelStatements(n, read(n)!)]));
  const bodies = scripts.map((s) => withoutIncludeLines(s.text));
  const allCode = codeOf([...order.map((n) => read(n)!), ...bodies].join('\n'));

  // One name, one meaning: under EVAL a script held only its own includes.
  const owner = new Map<string, string>();
  for (const [inc, list] of statements)
    for (const st of list)
      for (const name of st.names) {
        const prev = owner.get(name);
        if (prev !== undefined && !(prev === inc && st.kind === 'function'))
          throw new Error(
            `lua include ${inc}: '${name}' is defined by include ${prev} too (one library, one name)`,
          );
        if (name in LUA_CONSTANTS) throw new Error(`lua include ${inc}: '${name}' is a generated constant`);
        owner.set(name, inc);
      }
  for (const [inc, list] of statements)
    for (const st of list)
      if (st.kind === 'once' && st.names.some((n) => assigns(allCode, n))) st.kind = 'state';
      else if (
        st.kind === 'declare' &&
        st.names.some((n) => !list.some((f) => f.kind === 'function' && f.names.includes(n)))
      )
        throw new Error(
          `lua include ${inc}: 'local ${st.names.join(', ')}' is declared but never defined as a function`,
        );

  // A generated constant is made once: no script may change it.
  for (const name of Object.keys(LUA_CONSTANTS))
    if (
      new RegExp(`(?<![\\w.])${name}(?:\\[[^\\]]*\\]|\\.\\w+)*\\s*=(?!=)|table\\.\\w+\\(\\s*${name}\\b`).test(
        allCode,
      )
    )
      throw new Error(
        `lua: the generated constant ${name} is changed by a script; the library makes it once`,
      );
  for (const s of scripts)
    if (/redis\.replicate_commands/.test(codeOf(s.text)))
      throw new Error(
        `lua script ${s.name}: redis.replicate_commands does not exist in Redis Functions (nor is it needed since Redis 5)`,
      );

  const parts: string[] = [
    `-- Machinist's Lua scripts as one library, assembled from src/store/redis/lua by luaLibrary.ts.`,
    'local KEYS, ARGV',
    constantsFor(allCode).trimEnd(),
    // State is only declared here: its value is the callback's to make (reset).
    ...order.flatMap((n) => [
      `-- include ${n}`,
      ...statements.get(n)!.map((st) => (st.kind === 'state' ? `local ${st.names.join(', ')}` : st.text)),
    ]),
  ];
  for (const [i, s] of scripts.entries()) {
    const state = resolveIncludes(s.name, s.text, read).flatMap((n) =>
      statements
        .get(n)!
        .filter((st) => st.kind === 'state')
        .map((st) => st.text.replace(/^local /, '')),
    );
    const fn = `${HASH_PLACEHOLDER}_${s.name}`;
    const flags = flagsOf(s).map((f) => `'${f}'`);
    parts.push(
      `-- script ${s.name}-${s.numberOfKeys}.lua`,
      'do',
      ...(state.length ? ['local function reset()', ...state, 'end'] : []),
      `redis.register_function{function_name = '${fn}', callback = function(keys, args)`,
      `KEYS, ARGV = keys, args${state.length ? '; reset()' : ''}`,
      bodies[i]!.trimEnd(),
      `end, flags = { ${flags.join(', ')} }}`,
      'end',
    );
  }
  const body = `${parts.join('\n')}\n`;
  const hash = createHash('sha1').update(body).digest('hex').slice(0, 8);
  const name = `machinist_${hash}`;
  return {
    name,
    code: `#!lua name=${name}\n${body.replaceAll(HASH_PLACEHOLDER, name)}`,
    functionName: (script) => `${name}_${script}`,
  };
}
