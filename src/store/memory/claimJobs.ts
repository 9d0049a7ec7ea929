// A claim of new work on MemoryStore, as commit-12.lua's claim on Redis: THE FLOW GATE of the
// queue (paused, `total`, THE HOLD, THE THROTTLE and its SKIP), the promotion of due jobs and of
// the lines whose rate allows, then the pops, each popped job through its gates (claimOne.ts)
// and each that passed started (startClaimed.ts, as lua/include/lcClaim.lua). Called by the
// commit (memoryWork.ts) after its writes (commitOps.ts), in the same synchronous step.

import type { ClaimRequest, ClaimedJob } from '../types.js';
import type { MemoryLifecycle } from './MemoryLifecycle.js';
import type { QueueState } from './QueueState.js';
import { promoteDue } from './commitOps.js';
import { releaseDueKeys } from './keyGate.js';
import { releaseDueMachines } from './machineRate.js';
import { claimOne, type ClaimPass } from './claimOne.js';
import { startClaimed } from './startClaimed.js';
import { claimEarly, earlyAllowed } from './claimEarly.js';

/** Most jobs one claim pops (set aside for full keys included), as commit-12.lua's FLOW_POP_CAP. */
const FLOW_POP_CAP = 1000;
/** THE LATENESS CARRY's bound (ms), as commit-12.lua's THROTTLE_CARRY_MS. */
const THROTTLE_CARRY_MS = 50;

/** Claims up to `claim.max` queued jobs (after promoting due ones); `nextDueAt` when short. */
export function claimJobs(
  lc: MemoryLifecycle,
  q: QueueState,
  claim: ClaimRequest,
  now: number,
): { claimed: ClaimedJob[]; nextDueAt: number | null; more: boolean } {
  // THE FLOW GATE (as commit-12.lua's claim; lua/include/lcFlow.lua): a paused queue gives
  // nothing; `total` caps the running jobs (those in `active`); a job whose key is full is set
  // aside in its key's waiting line at its place, and the claim pops on, at most FLOW_POP_CAP.
  const flow = q.flow;
  const room = flow.limits.total !== undefined ? flow.limits.total - q.index.active.size : Infinity;
  let want = Math.max(0, Math.min(claim.max, room));
  if (flow.paused || want === 0) return { claimed: [], nextDueAt: null, more: false };
  // THE HOLD on a queue with no throttle (a RateLimitedError): nothing starts before tat.
  const rate = flow.limits.rateLimit;
  if (!rate && flow.tat !== undefined && flow.tat > now)
    return { claimed: [], nextDueAt: Math.ceil(flow.tat), more: false };
  // THE THROTTLE (a GCRA, as commit-12.lua's): one start per T, `burst` more at once.
  const share = rate ? throttleShare(rate, flow.tat, want, now) : undefined;
  const gcra = share?.gcra;
  const throttled = share?.throttled ?? false;
  // SKIP (a throttle of mode 'skip'): the jobs this claim would have started but for the rate
  // are ended cancelled, unrun, saying why (as commit-12.lua).
  const skipN = share?.skipN ?? 0;
  if (share) {
    want = share.want;
    if (want === 0 && skipN === 0)
      return { claimed: [], nextDueAt: Math.ceil(share.gcra.tat - share.gcra.tau), more: false };
  }
  // The claim's share of the due jobs (as lua/include/lcClaimDue.lua): as many as it takes.
  promoteDue(lc, q, now, want + skipN);
  const keyGate = flow.keyGate;
  if (keyGate) releaseDueKeys(lc, q, now);
  const mrated = flow.machineRated;
  if (mrated) releaseDueMachines(lc, q, now);
  const claimed: ClaimedJob[] = [];
  const pass: ClaimPass = {
    lc,
    q,
    now,
    keyGate,
    mrated,
    perKey: flow.limits.perKey,
    taking: new Map<string, number>(),
    takingGate: new Map<string, number>(),
    popped: [],
  };
  const popped = pass.popped;
  let seen = 0;
  while (popped.length < want && seen < FLOW_POP_CAP) {
    const e = q.index.queued.popMin();
    if (!e) break;
    seen++;
    if (!q.jobs.has(e.member)) {
      // No record (it vanished): nothing to run, and its key is unknown: the round robin's head
      // counts start afresh (FlowLines.headsAfresh).
      if (flow.roundRobin) lc.lines.headsAfresh(q);
      continue;
    }
    const key = q.jobs.get(e.member)?.concurrencyKey;
    const inLine = claimOne(pass, e, key);
    // A head of its key left `queued` (roundRobin: FlowLines.headLeft); its key's next
    // enters unless it was itself set aside in the key's line.
    if (key !== undefined && flow.roundRobin) lc.lines.headLeft(q, key, !inLine);
  }
  // The due jobs over the queue's rate, next in line: ended cancelled, unrun (mode 'skip').
  skipOverRate(lc, q, skipN);
  const tok = q.tok;
  q.tok += popped.length;
  const deadline = now + claim.leaseMs;
  popped.forEach((id, i) => {
    const c = startClaimed(lc, q, claim, id, `${claim.workerId}:${tok + i + 1}`, deadline);
    if (c) claimed.push(c);
  });
  // THE EARLY LEASE (claimEarly.ts): its jobs last, as commit-12.lua's reply has them.
  const early = earlyAllowed(q, claim) ? claimEarly(lc, q, claim, now, deadline) : undefined;
  if (early) claimed.push(...early.held);
  // After the pop cap, the jobs behind those set aside are to be claimed at once (commit-12.lua);
  // so are due jobs left for another claim (lcClaimDue.lua's lcDueLeft).
  const dueLeft = (q.index.delayed.first()?.score ?? Infinity) <= now;
  const more =
    ((popped.length === want && !throttled) || seen >= FLOW_POP_CAP) && (q.index.queued.size > 0 || dueLeft);
  const first = popped.length < want ? q.index.delayed.first() : undefined;
  let nextDueAt = first ? first.score : null;
  // THE EARLY LEASE: the next entry that comes within the lead, if that is sooner.
  if (early?.nextAt != null && popped.length < want && (nextDueAt === null || nextDueAt > early.nextAt))
    nextDueAt = Math.ceil(early.nextAt);
  // A key whose line waits for its rate: the idle supervisor wakes when it is due.
  const kd = keyGate && popped.length < want ? flow.keyDue.first() : undefined;
  if (kd && (nextDueAt === null || nextDueAt > kd.score)) nextDueAt = kd.score;
  // A machine whose rate line waits: likewise.
  const md = mrated && popped.length < want ? flow.machineDue.first() : undefined;
  if (md && (nextDueAt === null || nextDueAt > md.score)) nextDueAt = md.score;
  if (gcra) {
    // Each job started spends one emission interval.
    if (claimed.length > 0) flow.tat = gcra.tat + claimed.length * gcra.T;
    if (throttled) {
      const at = Math.ceil((flow.tat ?? gcra.tat) - gcra.tau);
      if (nextDueAt === null || nextDueAt > at) nextDueAt = at;
    }
  }
  return { claimed, nextDueAt, more };
}

type QueueRate = NonNullable<QueueState['flow']['limits']['rateLimit']>;

/** THE THROTTLE's share of a claim that wants `want` jobs: how many its rate lets start now. */
function throttleShare(
  rate: QueueRate,
  storedTat: number | undefined,
  want: number,
  now: number,
): { want: number; skipN: number; throttled: boolean; gcra: { T: number; tau: number; tat: number } } {
  const T = rate.perMs / rate.limit;
  const tau = (rate.burst ?? 0) * T;
  // THE LATENESS CARRY (burst 0, as commit-12.lua): tat may lag now by one interval, at
  // most THROTTLE_CARRY_MS.
  const lag = tau === 0 ? Math.min(T, THROTTLE_CARRY_MS) : 0;
  const tat = Math.max(storedTat ?? 0, now - lag);
  const allowed = tat <= now + tau ? Math.floor((now + tau - tat) / T) + 1 : 0;
  const gcra = { T, tau, tat };
  if (allowed >= want) return { want, skipN: 0, throttled: false, gcra };
  return { want: allowed, skipN: rate.mode === 'skip' ? want - allowed : 0, throttled: true, gcra };
}

/** SKIP: the next `n` due jobs, over the queue's rate, end cancelled, unrun. */
function skipOverRate(lc: MemoryLifecycle, q: QueueState, n: number): void {
  const flow = q.flow;
  for (let i = 0; i < n; i++) {
    const e = q.index.queued.popMin();
    if (!e) break;
    const j = q.jobs.get(e.member);
    if (j?.concurrencyKey !== undefined && flow.roundRobin) lc.lines.headLeft(q, j.concurrencyKey, true);
    if (!j && flow.roundRobin) lc.lines.headsAfresh(q);
    if (j)
      lc.move(q, j, 'cancelled', {
        kind: 'cancelled',
        log: [JSON.stringify({ type: 'cancelled', reason: 'queue over its rate limit (mode skip)' })],
      });
  }
}
