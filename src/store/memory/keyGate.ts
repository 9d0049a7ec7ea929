// THE KEY GATE in a MemoryStore (as lua/include/lcKeyGate.lua, which holds the rules and the
// invariants): one GCRA per concurrency key (and the key's RateLimitedError hold), the keys whose
// line waits for their rate, by when it allows (keyDue), and the paused keys.

import type { FlowState } from './FlowState.js';
import type { MemoryLifecycle } from './MemoryLifecycle.js';
import type { QueueState } from './QueueState.js';

/** The key throttle's emission interval and tolerance (0, 0 with none: a hold alone applies). */
function keyGcra(flow: FlowState): { T: number; tau: number } {
  const r = flow.limits.keyRateLimit;
  if (!r) return { T: 0, tau: 0 };
  const T = r.perMs / r.limit;
  return { T, tau: (r.burst ?? 0) * T };
}

/** Key `key` may start one job now: undefined, its GCRA spent. Else the time it may (lcKeyRateAt). */
export function keyRateAt(flow: FlowState, key: string, now: number): number | undefined {
  const kt = flow.keyTat.get(key);
  const rated = flow.limits.keyRateLimit !== undefined;
  if (kt === undefined && !rated) return undefined;
  const { T, tau } = keyGcra(flow);
  const t0 = Math.max(kt ?? now, now);
  if (t0 > now + tau) return Math.ceil(t0 - tau);
  if (rated) flow.keyTat.set(key, t0 + T);
  else flow.keyTat.delete(key);
  return undefined;
}

/** Key `key`'s line waits for its rate until `at` (only ever earlier). */
export function keyDue(flow: FlowState, key: string, at: number): void {
  const cur = flow.keyDue.score(key);
  if (cur === undefined || cur > at) flow.keyDue.add(key, at);
}

/** THE KEY HOLD (a RateLimitedError from a job of `key`): no job of the key starts for holdMs. */
export function holdKey(flow: FlowState, key: string, now: number, holdMs: number): void {
  const until = now + holdMs + keyGcra(flow).tau;
  if (until > (flow.keyTat.get(key) ?? 0)) flow.keyTat.set(key, until);
}

/** The keys whose rate now allows: the heads of their lines back into `queued` (lcReleaseDueKeys). */
export function releaseDueKeys(lc: MemoryLifecycle, q: QueueState, now: number): void {
  const flow = q.flow;
  const { T, tau } = keyGcra(flow);
  const rated = flow.limits.keyRateLimit !== undefined;
  for (const { member: key } of flow.keyDue.popUpTo(now, 100)) {
    if (flow.pausedKeys.has(key)) continue;
    const line = flow.waiting.get(key);
    if (!line) continue;
    const t0 = Math.max(flow.keyTat.get(key) ?? now, now);
    const n = rated ? Math.max(1, Math.floor((now + tau - t0) / T) + 1) : 1000;
    for (let i = 0; i < n; i++) {
      const head = line.popMin();
      if (!head) break;
      lc.enterQueued(q, head.member, head.score, key);
    }
    flow.tidy(key);
    if (rated && line.size > 0) keyDue(flow, key, Math.ceil(t0 + n * T - tau));
  }
}
