// Loads the Lua scripts in lua/ (one atomic operation per file, named `<name>-<numKeys>.lua`),
// inlining `--@include <file>` lines from lua/include/, and defines each on an ioredis client.

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';

const LUA_DIR = join(dirname(fileURLToPath(import.meta.url)), 'lua');

interface ScriptSource {
  name: string;
  numberOfKeys: number;
  lua: string;
}

let cache: ScriptSource[] | undefined;

/** The text of lua/include/<name>.lua (what `--@include <name>` inlines). */
export function includeSource(name: string): string {
  return readFileSync(join(LUA_DIR, 'include', `${name}.lua`), 'utf8');
}

function inline(source: string): string {
  return source.replace(/^--@include (\w+)\s*$/gm, (_, name: string) => includeSource(name));
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
        lua: inline(readFileSync(join(LUA_DIR, file), 'utf8')),
      };
    });
  return cache;
}

export type ScriptRunner = (keys: string[], args: (string | number)[]) => Promise<unknown>;

export function defineScripts(redis: Redis): Record<string, ScriptRunner> {
  const out: Record<string, ScriptRunner> = {};
  for (const s of loadScripts()) {
    redis.defineCommand(s.name, { numberOfKeys: s.numberOfKeys, lua: s.lua });
    out[s.name] = (keys, args) => (redis as any)[s.name](...keys, ...args) as Promise<unknown>;
  }
  return out;
}
