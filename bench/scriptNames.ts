// The Lua scripts by their SHA1 (what SLOWLOG and MONITOR show for EVALSHA): their names.

import { createHash } from 'node:crypto';
import { loadScripts } from '../src/store/redis/scripts.js';

export function scriptNamesBySha(): Map<string, string> {
  return new Map(loadScripts().map((s) => [createHash('sha1').update(s.lua).digest('hex'), s.name]));
}
