// FCALL as one ioredis Command made from a flat list of strings, for the store's own calls on its
// own connection (ScriptCalls.run). ioredis's command methods take their arguments as a rest
// list and copy them through Array.prototype.flat(), which is slow on a long list: ~16 us for a
// commit of 50 plain jobs (~220 arguments), 0.3-0.4 us of worker CPU a job at c=100
// (bench/probes/plainCost.ts). Here the arguments go into one array, as strings (what
// ioredis's stringifyArguments makes of them), and the Command takes it as its own.
//
// Only where nothing else of what ioredis's method does is wanted: no keyPrefix (it would
// prefix the keys), no friendly error stacks, no auto-pipelining (directFcall says when).
// Everything after construction (routing on a cluster, the offline queue, the reply) is
// ioredis's sendCommand, as for any command; only its bytes are made here, as one Buffer
// (respCommand.ts: the same bytes ioredis's text would be).

import { Command } from 'ioredis';
import type { RedisClient } from './redisClient.js';
import { respCommand } from './respCommand.js';

/** An FCALL whose arguments are strings, written to the socket as one Buffer. */
class FcallCommand extends Command {
  override toWritable(): Buffer {
    return respCommand(this.name, this.args as string[]);
  }
}

/** Whether `redis` may be sent FCALLs made here (see the file header). */
export function directFcall(redis: RedisClient): boolean {
  const o = redis.options as {
    keyPrefix?: unknown;
    showFriendlyErrorStack?: unknown;
    enableAutoPipelining?: unknown;
  };
  return !o.keyPrefix && !o.showFriendlyErrorStack && !o.enableAutoPipelining;
}

/**
 * `FCALL fn numberOfKeys ...keys ...args`, sent on `redis`; its bulk strings come back as text,
 * or as Buffers when `buffers` (ioredis's `fcallBuffer`).
 */
export function sendFcall(
  redis: RedisClient,
  fn: string,
  numberOfKeys: number,
  keys: readonly string[],
  args: readonly (string | number)[],
  buffers = false,
): Promise<unknown> {
  const all: string[] = [fn, String(numberOfKeys)];
  for (const k of keys) all.push(k);
  for (const a of args) all.push(typeof a === 'string' ? a : String(a));
  // Made without arguments (nothing to flatten or to stringify), then given its list.
  const command = new FcallCommand('fcall', [], { replyEncoding: buffers ? null : 'utf8' });
  command.args = all;
  return redis.sendCommand(command) as Promise<unknown>;
}
