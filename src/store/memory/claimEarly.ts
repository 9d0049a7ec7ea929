// THE EARLY LEASE on MemoryStore, as lua/include/lcClaimEarly.lua on Redis (its header states the
// invariants): a claim also takes parked jobs whose timer is due within the worker's lead, not
// yet due, `hold` at most, the earliest first; only a parked (`waiting`) job, only one THE
// STRAIGHT RULE allows (a machine, no concurrency key, no parent on this queue, no cancel
// requested), only on a queue the caller finds straight (no key gate, machine throttle or
// machine gate) with no total and no throttle (claimJobs.ts). Each is WAKEd into `queued` at a
// fresh place and claimed at once, as a due job claimed straight: a normal lease, to the
// window's end and a lease more.

import type { ClaimRequest, ClaimedJob } from '../types.js';
import type { MemoryLifecycle } from './MemoryLifecycle.js';
import type { QueueState } from './QueueState.js';
import { BAND } from '../storeConstants.js';
import { startClaimed } from './startClaimed.js';

/** Whether a claim on `q` may take jobs early at all (the caller's `straight`, no total, no throttle). */
export function earlyAllowed(q: QueueState, claim: ClaimRequest): boolean {
  const f = q.flow;
  return (
    (claim.hold ?? 0) > 0 &&
    (claim.leadMs ?? 0) > 0 &&
    !f.keyGate &&
    !f.machineRated &&
    f.machineGates.size === 0 &&
    f.limits.total === undefined &&
    f.limits.rateLimit === undefined
  );
}

/**
 * Claims up to `claim.hold` parked jobs due within `claim.leadMs` (THE EARLY LEASE), their
 * tokens numbered from `tok`; and when the next claim may take one early (null: none known), as
 * lcClaimEarly.lua says it.
 */
export function claimEarly(
  lc: MemoryLifecycle,
  q: QueueState,
  claim: ClaimRequest,
  now: number,
  deadline: number,
): { held: ClaimedJob[]; nextAt: number | null } {
  const hold = claim.hold ?? 0;
  const lead = claim.leadMs ?? 0;
  const horizon = now + lead;
  const delayed = q.index.delayed;
  // The entries not yet due, up to the window's end, `hold` at most (ZRANGEBYSCORE (now horizon).
  const scan: { member: string; score: number }[] = [];
  let beyond: number | null = null;
  for (let at = 0; scan.length < hold; at += 256) {
    const part = delayed.range(at, 256);
    if (part.length === 0) break;
    for (const e of part) {
      if (e.score <= now) continue;
      if (e.score > horizon) {
        beyond = e.score;
        break;
      }
      scan.push(e);
      if (scan.length === hold) break;
    }
    if (beyond !== null) break;
  }
  const ids: string[] = [];
  for (const e of scan) {
    const j = q.jobs.get(e.member);
    if (
      j?.status === 'waiting' &&
      j.machine &&
      !j.cancelRequested &&
      j.concurrencyKey === undefined &&
      !(j.parentId !== undefined && !j.parentQueue)
    )
      ids.push(e.member);
  }
  let nextAt: number | null = null;
  if (scan.length < hold) nextAt = beyond === null ? null : beyond - lead;
  else if (ids.length < hold) nextAt = scan[scan.length - 1]!.score;
  const held: ClaimedJob[] = [];
  const seq = q.seq;
  q.seq += ids.length;
  const tok = q.tok;
  q.tok += ids.length;
  ids.forEach((id, i) => {
    const j = q.jobs.get(id)!;
    // The WAKE, then the claim (lcClaimDue.lua's STRAIGHT FROM `delayed`, in two moves here).
    lc.move(q, j, 'queued', { score: j.band * BAND + seq + i + 1 });
    // Leased to the window's end and a lease more: no heartbeat while it waits (LeaseKeeper.ts).
    const c = startClaimed(lc, q, claim, id, `${claim.workerId}:${tok + i + 1}`, deadline + lead);
    if (c) held.push({ ...c, holdUntil: horizon });
  });
  return { held, nextAt };
}
