// Loads the Lua scripts in lua/ (one atomic operation per file, named `<name>-<numKeys>.lua`)
// in the two forms a connection runs them in (scriptCalls.ts): each alone for EVALSHA, the
// includes it names (`--- @include "name"`, resolved by luaIncludes.ts from lua/include/)
// inlined after the constants they share with TypeScript (luaConstants.ts); and all together as
// one Redis Functions library (luaLibrary.ts).
//
// ONE SLOT PER CALL (Redis Cluster): every key a script names in KEYS is a key of one queue,
// `<prefix>:{<queue>}:...` (keys.ts), so all share the queue's hash tag and slot; a script never
// names two queues (a child's outcome for a parent on another queue goes through its queue's
// outbox, relayed by fanIn-2.lua in the parent's slot) nor the global keys (registry, queue set,
// format stamp: registryOps.ts and formatOps.ts touch them one command at a time). Besides KEYS,
// the scripts build keys from the queue prefix they get in ARGV (`job:<id>`, `inbox:<id>`,
// `children:<id>`, `fan:<id>:<group>`, `idem:<key>`, `result:<watcher>`, `outbox`, the control
// channel `ctl:<worker>`): the same hash tag, so the same slot, which Redis OSS, Valkey and
// managed clusters accept. They cannot be declared, because the ids are read inside the script
// (a claim pops them from `queued`, a reap from `active`, a cancel walks a job's record). A
// server that insists on declared keys needs its undeclared-keys setting: Dragonfly
// `--default_lua_flags=allow-undeclared-keys` (or, to keep per-tag locking,
// `--lock_on_hashtags`, under which a script locks its queue's tag). docs/production.md,
// "Redis Cluster", says the same to operators.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RedisClient } from './redisClient.js';
import { constantsFor } from './luaConstants.js';
import { assembleLua } from './luaIncludes.js';
import { ScriptCalls, type ScriptsMode } from './scriptCalls.js';
import { buildLibrary, type LuaLibrary, type ScriptFile } from './luaLibrary.js';

const LUA_DIR = join(dirname(fileURLToPath(import.meta.url)), 'lua');

interface ScriptSource {
  name: string;
  numberOfKeys: number;
  lua: string;
}

let cache: ScriptSource[] | undefined;
let files: ScriptFile[] | undefined;
let library: LuaLibrary | undefined;

/** The text of lua/include/<name>.lua, or undefined when there is no such include. */
export function readInclude(name: string): string | undefined {
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

/** The files of lua/ as written (include lines in place). */
export function scriptFiles(): ScriptFile[] {
  files ??= readdirSync(LUA_DIR)
    .filter((f) => f.endsWith('.lua'))
    .sort()
    .map((file) => {
      const m = /^(\w+)-(\d+)\.lua$/.exec(file);
      if (!m) throw new Error(`lua script ${file} is not named <name>-<numKeys>.lua`);
      return { name: m[1]!, numberOfKeys: Number(m[2]), text: readFileSync(join(LUA_DIR, file), 'utf8') };
    });
  return files;
}

/** The scripts as EVAL runs them: each with its constants and includes. */
export function loadScripts(): ScriptSource[] {
  cache ??= scriptFiles().map((f) => ({
    name: f.name,
    numberOfKeys: f.numberOfKeys,
    lua: withIncludes(f.text, `${f.name}-${f.numberOfKeys}.lua`),
  }));
  return cache;
}

/** The scripts as one Redis Functions library (luaLibrary.ts). */
export function loadLibrary(): LuaLibrary {
  library ??= buildLibrary(scriptFiles(), readInclude);
  return library;
}

export type ScriptRunner = (keys: string[], args: (string | number)[]) => Promise<unknown>;

/** How `redis` runs the scripts (scriptCalls.ts): FCALL of the library, or EVALSHA ('eval'). */
export function scriptCalls(redis: RedisClient, mode: ScriptsMode = 'auto'): ScriptCalls {
  return new ScriptCalls(redis, loadScripts(), loadLibrary, mode);
}
