// BullMQ-style includes for the Lua scripts: a script or an include file names what it needs in
// `--- @include "name"` lines (name: a file of lua/include/ without `.lua`). The loader resolves
// them transitively, each include once, dependencies before the includes that use them, so no
// include relies on the order a script happens to list them in. A missing include or a cycle is
// refused with a LuaIncludeError. Lua has no forward reference between separate local
// functions: functions that call each other round (lcMove -> fanIn -> lcMove) live in one file.

import { LuaIncludeError } from '../../errors.js';

const INCLUDE_LINE = /^--- @include "([\w-]+)"[ \t]*\r?\n?/gm;

/** The names a Lua text includes, in the order written. */
export function includesOf(lua: string): string[] {
  return [...lua.matchAll(INCLUDE_LINE)].map((m) => m[1]!);
}

/** `lua` without its include lines. */
export function withoutIncludeLines(lua: string): string {
  return lua.replace(INCLUDE_LINE, '');
}

/**
 * The includes `lua` needs, transitively, each once, in an order where every include comes after
 * the ones it names. `read(name)` returns an include's text, or undefined when there is none.
 */
export function resolveIncludes(
  script: string,
  lua: string,
  read: (name: string) => string | undefined,
): string[] {
  const order: string[] = [];
  const done = new Set<string>();
  const visit = (name: string, path: string[]): void => {
    if (done.has(name)) return;
    const chain = [...path, name];
    if (path.includes(name))
      throw new LuaIncludeError('LUA_INCLUDE_CYCLE', script, chain.slice(path.indexOf(name)));
    const text = read(name);
    if (text === undefined) throw new LuaIncludeError('LUA_INCLUDE_MISSING', script, [script, ...chain]);
    for (const dep of includesOf(text)) visit(dep, chain);
    done.add(name);
    order.push(name);
  };
  for (const name of includesOf(lua)) visit(name, []);
  return order;
}

/**
 * The script with its includes inlined: every include's text (without its own include lines),
 * in resolved order, where the script's first include line was; its other include lines dropped.
 */
export function assembleLua(script: string, lua: string, read: (name: string) => string | undefined): string {
  const names = resolveIncludes(script, lua, read);
  if (names.length === 0) return lua;
  const block = names
    .map((n) => withoutIncludeLines(read(n)!))
    .map((t) => (t.endsWith('\n') ? t : `${t}\n`))
    .join('');
  const first = lua.search(INCLUDE_LINE);
  return lua.slice(0, first) + block + withoutIncludeLines(lua.slice(first));
}
