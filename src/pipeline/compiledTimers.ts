// A compiled wait state's or timed step state's timers (runCompiledPipeline.ts), as the XState
// runtime holds them: which one fires first, and which stored timers a compiled run may resume with.

import type { CompiledWait } from './compiledTable.js';
import type { StoredTimer } from './timers.js';

/**
 * The timer that fires first, and in how many ms. The XState runtime schedules each (at entry,
 * or restored with `max(0, dueAt - now)`: timers.ts restoreTimers) in stored order, and Node
 * fires the shortest first (under 1 ms counts as 1), equal ones in the order scheduled: so a
 * restored pair both due fires in stored order, whichever was due first.
 */
export function firstToFire(
  timers: readonly StoredTimer[],
  now: number,
): { timer: StoredTimer; ms: number } | undefined {
  let first: { timer: StoredTimer; ms: number } | undefined;
  for (const timer of timers) {
    const ms = Math.max(0, timer.dueAt - now);
    if (!first || Math.max(1, ms) < Math.max(1, first.ms)) first = { timer, ms };
  }
  return first;
}

/**
 * `timers` when they are a wait state's (or a step state's `after`) own, as the XState runtime stores them (ids of its
 * delays in their entry order, each once; source and target the root; the bare after event; a
 * due time), else null: only the XState runtime restores the snapshot then.
 */
export function storedWaitTimers(wait: CompiledWait, timers: readonly StoredTimer[]): StoredTimer[] | null {
  let next = 0;
  for (const t of timers) {
    const i = wait.delays.findIndex((d) => d.eventType === t.id);
    const ev = t.event as { type?: unknown } | undefined;
    if (i < next || t.source !== '' || t.target !== '' || typeof t.dueAt !== 'number') return null;
    if (!ev || Object.keys(ev).length !== 1 || ev.type !== t.id) return null;
    next = i + 1;
  }
  return [...timers];
}
