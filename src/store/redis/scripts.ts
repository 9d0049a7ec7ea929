// Loads the Lua scripts in lua/ (one atomic operation per file, named `<name>-<numKeys>.lua`),
// inlining the includes they name (`--- @include "name"`, resolved by luaIncludes.ts from
// lua/include/) after the constants they share with TypeScript (luaConstants.ts), and defines
// each on an ioredis client.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RedisClient } from './redisClient.js';
import { constantsFor } from './luaConstants.js';
import { assembleLua } from './luaIncludes.js';

const LUA_DIR = join(dirname(fileURLToPath(import.meta.url)), 'lua');

interface ScriptSource {
  name: string;
  numberOfKeys: number;
  lua: string;
}

let cache: ScriptSource[] | undefined;

/** The text of lua/include/<name>.lua, or undefined when there is no such include. */
function readInclude(name: string): string | undefined {
  const file = join(LUA_DIR, 'include', `${name}.lua`);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/**
 * `lua` as the loader sends it (tests run fragments): the constants its code names, generated
 * from TypeScript (luaConstants.ts), then the script with the includes it names inlined.
 */
export function withIncludes(lua: string, script = 'inline'): string {
  const assembled = assembleLua(script, lua, readInclude);
  return constantsFor(assembled) + assembled;
}

export function loadScripts(): ScriptSource[] {
  cache ??= readdirSync(LUA_DIR)
    .filter((f) => f.endsWith('.lua'))
    .map((file) => {
      const m = /^(\w+)-(\d+)\.lua$/.exec(file);
      if (!m) throw new Error(`lua script ${file} is not named <name>-<numKeys>.lua`);
      return {
        name: m[1]!,
        numberOfKeys: Number(m[2]),
        lua: withIncludes(readFileSync(join(LUA_DIR, file), 'utf8'), file),
      };
    });
  return cache;
}

export type ScriptRunner = (keys: string[], args: (string | number)[]) => Promise<unknown>;

export function defineScripts(redis: RedisClient): Record<string, ScriptRunner> {
  const out: Record<string, ScriptRunner> = {};
  for (const s of loadScripts()) {
    redis.defineCommand(s.name, { numberOfKeys: s.numberOfKeys, lua: s.lua });
    out[s.name] = (keys, args) => (redis as any)[s.name](...keys, ...args) as Promise<unknown>;
  }
  return out;
}
