// THE KEY GATE in a MemoryStore (as lua/include/lcKeyGate.lua, which holds the rules and the
// invariants): one GCRA per concurrency key (gcra.ts; and the key's RateLimitedError hold), the
// keys whose line waits for their rate, by when it allows (keyDue), and the paused keys.

import type { FlowState } from './FlowState.js';
import type { MemoryLifecycle } from './MemoryLifecycle.js';
import type { QueueState } from './QueueState.js';
import { dueAt, gcraAt, gcraOf, gcraRoom } from './gcra.js';

/** Key `key` may start one job now: undefined, its GCRA spent. Else the time it may (lcKeyRateAt). */
export function keyRateAt(flow: FlowState, key: string, now: number): number | undefined {
  return gcraAt(flow.keyTat, key, now, gcraOf(flow.limits.keyRateLimit), true);
}

/** Key `key`'s line waits for its rate until `at` (only ever earlier). */
export function keyDue(flow: FlowState, key: string, at: number): void {
  dueAt(flow.keyDue, key, at);
}

/** THE KEY HOLD (a RateLimitedError from a job of `key`): no job of the key starts for holdMs. */
export function holdKey(flow: FlowState, key: string, now: number, holdMs: number): void {
  const until = now + holdMs + gcraOf(flow.limits.keyRateLimit).tau;
  if (until > (flow.keyTat.get(key) ?? 0)) flow.keyTat.set(key, until);
}

/** The keys whose rate now allows: the heads of their lines back into `queued` (lcReleaseDueKeys). */
export function releaseDueKeys(lc: MemoryLifecycle, q: QueueState, now: number): void {
  const flow = q.flow;
  const g = gcraOf(flow.limits.keyRateLimit);
  for (const { member: key } of flow.keyDue.popUpTo(now, 100)) {
    if (flow.pausedKeys.has(key)) continue;
    const line = flow.waiting.get(key);
    if (!line) continue;
    const { n, again } = gcraRoom(flow.keyTat, key, now, g);
    for (let i = 0; i < n; i++) {
      const head = line.popMin();
      if (!head) break;
      lc.lines.enterQueued(q, head.member, head.score, key);
    }
    flow.tidy(key);
    if (again !== undefined && line.size > 0) keyDue(flow, key, again);
  }
}
