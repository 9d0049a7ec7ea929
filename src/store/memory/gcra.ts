// ONE GCRA PER NAME in a MemoryStore (as lua/include/lcGcra.lua, which holds the rules): the one
// copy behind the throttles that keep a state per name, each concurrency key's (keyGate.ts) and
// each machine's (machineRate.ts). A name's state is its theoretical arrival time (store ms).

import type { RateLimit } from '../types.js';
import type { ZSet } from './ZSet.js';

/** Emission interval, tolerance, and whether a throttle exists (without: the state is a hold). */
export interface Gcra {
  T: number;
  tau: number;
  rated: boolean;
}

export const NO_RATE: Gcra = { T: 0, tau: 0, rated: false };

export function gcraOf(r: RateLimit | undefined): Gcra {
  if (!r) return NO_RATE;
  const T = r.perMs / r.limit;
  return { T, tau: (r.burst ?? 0) * T, rated: true };
}

/** Name `name` may start one job now: undefined, and with `spend` its start is spent. Else when it may. */
export function gcraAt(
  tats: Map<string, number>,
  name: string,
  now: number,
  g: Gcra,
  spend: boolean,
): number | undefined {
  const kt = tats.get(name);
  if (kt === undefined && !g.rated) return undefined;
  const t0 = Math.max(kt ?? now, now);
  if (t0 > now + g.tau) return Math.ceil(t0 - g.tau);
  if (!spend) return undefined;
  if (g.rated) tats.set(name, t0 + g.T);
  else tats.delete(name);
  return undefined;
}

/** Name `name`'s line waits until `at` (only ever earlier). */
export function dueAt(due: ZSet, name: string, at: number): void {
  const cur = due.score(name);
  if (cur === undefined || cur > at) due.add(name, at);
}

/** A due line of `name`: how many may go back now, and when the rest are due (lcGcraRoom). */
export function gcraRoom(
  tats: Map<string, number>,
  name: string,
  now: number,
  g: Gcra,
): { n: number; again?: number } {
  if (!g.rated) return { n: 1000 };
  const t0 = Math.max(tats.get(name) ?? now, now);
  const n = Math.max(1, Math.floor((now + g.tau - t0) / g.T) + 1);
  return { n, again: Math.ceil(t0 + n * g.T - g.tau) };
}
