// A worker's commit on MemoryStore, as lua/commit-12.lua on Redis: its fenced writes, then the
// promotion of due delayed jobs and a claim of new work, in one synchronous step. Each op names
// its target; the move itself is MemoryLifecycle.move's (THE FENCE is its guard).

import { MachinistError } from '../../errors.js';
import type { ClaimRequest, ClaimedJob, CommitOp } from '../types.js';
import { tokenWorker, type MemoryLifecycle } from './MemoryLifecycle.js';
import { BAND } from '../storeConstants.js';
import type { MemoryJob } from './MemoryJob.js';
import type { QueueState } from './QueueState.js';
import { FINAL } from '../lifecycleTable.js';
import { CODE } from '../../errorCodes.js';
import { ZSet } from './ZSet.js';
import { holdKey, keyDue, keyRateAt, releaseDueKeys } from './keyGate.js';
import { machineRate, machineRateAt, machineRateWait, releaseDueMachines } from './machineRate.js';

const TARGET = {
  done: 'done',
  fail: 'failed',
  broken: 'failed',
  retry: 'queued',
  cancelled: 'cancelled',
  requeue: 'queued',
  park: 'waiting',
} as const;

/** A malformed commit (what BAD_COMMIT reports on Redis): nothing was written. */
function bad(i: number, why: string): MachinistError {
  return new MachinistError(CODE.BAD_COMMIT, `BAD_COMMIT ${i} ${why}`);
}

const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * NO HALF-APPLIED CALL: every op (and the claim) is checked before the first write, as
 * commit-12.lua checks its arguments; a malformed call throws BAD_COMMIT and writes nothing.
 */
export function checkCommit(ops: readonly CommitOp[], claim: ClaimRequest | undefined): void {
  if (claim) {
    if (!isCount(claim.max)) throw bad(0, 'bad claim count');
    if (claim.max > 0 && !(claim.leaseMs > 0)) throw bad(0, 'bad lease ms');
  }
  ops.forEach((op, n) => {
    const i = n + 1;
    if (!op || typeof op.id !== 'string' || op.id === '' || typeof op.token !== 'string')
      throw bad(i, 'missing values');
    if (!(op.kind in TARGET) && op.kind !== 'checkpoint') throw bad(i, `unknown kind ${String(op.kind)}`);
    if ('version' in op && op.version !== undefined) {
      if (!Number.isInteger(op.version) || op.version < 1) throw bad(i, 'version');
    }
    if (op.kind === 'checkpoint') {
      if (op.status !== 'loading' && op.status !== 'working') throw bad(i, 'checkpoint status');
      if (op.inboxConsumed !== undefined && !isCount(op.inboxConsumed)) throw bad(i, 'inbox position');
    } else if (op.kind === 'retry') {
      if (!(Number.isFinite(op.delayMs) && op.delayMs >= 0)) throw bad(i, 'retry delay');
      if (!isCount(op.attempt) || op.attempt < 1) throw bad(i, 'retry attempt');
      if (op.retryLaters !== undefined && !isCount(op.retryLaters)) throw bad(i, 'retry-later count');
      if (op.holdMs !== undefined && !isCount(op.holdMs)) throw bad(i, 'rate-limit hold');
    } else if (op.kind === 'park') {
      if (op.wakeAt !== null && op.wakeAt !== undefined && !isCount(op.wakeAt)) throw bad(i, 'wake time');
      if (op.inboxConsumed !== undefined && !isCount(op.inboxConsumed)) throw bad(i, 'inbox position');
      if (!op.snapshot) throw bad(i, 'park without snapshot');
    }
    if (!Array.isArray(op.log)) throw bad(i, 'log');
    for (const e of op.log) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(e);
      } catch {
        throw bad(i, 'log entry is not JSON');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw bad(i, 'log entry is not an object');
    }
  });
}

/** '' or absent: not written (as `put` in commit-12.lua). */
const given = (v: string | undefined): string | undefined => (v === '' ? undefined : v);

/** Applies each op through the lifecycle; per op, whether it was written. */
export function applyOps(
  lc: MemoryLifecycle,
  q: QueueState,
  ops: readonly CommitOp[],
  now: number,
): boolean[] {
  return ops.map((op) => {
    const to = op.kind === 'checkpoint' ? op.status : TARGET[op.kind];
    const job = q.jobs.get(op.id);
    // The record's version follows its snapshot's (a migrate), in the same write.
    const set: Partial<MemoryJob> = { version: 'version' in op ? op.version : undefined };
    const base = { token: op.token, log: op.log, set };
    let r;
    switch (op.kind) {
      case 'checkpoint':
        Object.assign(set, {
          snapshot: given(op.snapshot),
          state: given(op.state),
          progress: given(op.progress),
          inboxConsumed: op.inboxConsumed,
        });
        r = lc.move(q, job, to, { ...base, kind: 'checkpoint' });
        break;
      case 'done':
        Object.assign(set, { output: op.output, state: given(op.state), snapshot: given(op.snapshot) });
        r = lc.move(q, job, 'done', { ...base, kind: 'done', output: op.output });
        break;
      case 'fail':
      case 'broken': {
        const isFail = op.kind === 'fail';
        Object.assign(set, {
          error: op.error,
          snapshot: isFail ? given(op.snapshot) : undefined,
          state: isFail ? given(op.state) : undefined,
          resume: isFail ? given(op.resume) : undefined,
        });
        r = lc.move(q, job, 'failed', {
          ...base,
          kind: 'failed',
          error: op.error,
          broken: isFail ? undefined : brokenReason(op.error),
        });
        break;
      }
      case 'cancelled':
        Object.assign(set, { snapshot: given(op.snapshot), state: given(op.state) });
        r = lc.move(q, job, 'cancelled', { ...base, kind: 'cancelled' });
        break;
      case 'retry':
        Object.assign(set, {
          error: op.error,
          attempt: op.attempt,
          snapshot: given(op.snapshot),
          retryLaters: op.retryLaters,
        });
        // Even with no delay a retry goes behind the jobs waiting in its band (fresh place).
        r = lc.move(q, job, 'queued', {
          ...base,
          kind: 'retry',
          runAt: now + Math.max(0, Math.round(op.delayMs)),
          fresh: true,
          cancelLog: '{"type":"cancelled","reason":"cancel requested; not retried"}',
        });
        // A job with a key holds back only its key (THE KEY HOLD); one without, the queue.
        if (op.holdMs !== undefined && 'moved' in r) {
          const key = job?.concurrencyKey;
          if (key !== undefined) holdKey(q.flow, key, now, op.holdMs);
          else holdStarts(q, now, op.holdMs);
        }
        break;
      case 'requeue':
        // Back to its old place in line: a shutdown must not push a job behind newer ones.
        r = lc.move(q, job, 'queued', {
          ...base,
          kind: 'requeued',
          cancelLog: '{"type":"cancelled","reason":"cancel requested; not requeued"}',
        });
        break;
      case 'park':
        Object.assign(set, {
          snapshot: op.snapshot,
          state: given(op.state),
          inboxConsumed: op.inboxConsumed,
        });
        r = lc.move(q, job, 'waiting', {
          ...base,
          kind: 'waiting',
          runAt: op.wakeAt ?? undefined,
          consumed: op.inboxConsumed ?? 0,
          cancelLog: '{"type":"cancelled","reason":"cancel requested; not parked"}',
        });
        break;
    }
    return 'moved' in r;
  });
}

/**
 * THE HOLD (a RateLimitedError, as commit-12.lua's holdStarts): no job of the queue starts for
 * `holdMs`; the GCRA's `tat` goes forward so the next start is allowed at now + holdMs, then at
 * the throttle's rate (no burst at once). With no throttle the hold is kept in `tat` alike
 * (T = tau = 0). Only ever forward.
 */
function holdStarts(q: QueueState, now: number, holdMs: number): void {
  const rate = q.flow.limits.rateLimit;
  const tau = rate ? ((rate.burst ?? 0) * rate.perMs) / rate.limit : 0;
  const until = now + holdMs + tau;
  if (until > (q.flow.tat ?? 0)) q.flow.tat = until;
}

/** A broken op's error names why (its message), as commit-12.lua reads it. */
function brokenReason(error: string): string {
  try {
    const e = JSON.parse(error) as { message?: unknown };
    return typeof e?.message === 'string' ? e.message : error;
  } catch {
    return error;
  }
}

/**
 * Moves due entries of `delayed` (backoff retries, delayed enqueues, parked jobs whose wake time
 * came) into `queued`, behind the jobs already waiting in their band (promoteDue.lua).
 */
export function promoteDue(lc: MemoryLifecycle, q: QueueState, now: number): number {
  const due = q.index.delayed.popUpTo(now, 1000);
  const seq = q.seq;
  q.seq += due.length;
  due.forEach((e, i) => {
    const j = q.jobs.get(e.member);
    if (j && (j.status === 'queued' || j.status === 'waiting'))
      lc.move(q, j, 'queued', { score: j.band * BAND + seq + i + 1 });
  });
  return due.length;
}

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
  let gcra: { T: number; tau: number; tat: number } | undefined;
  let throttled = false;
  // SKIP (a throttle of mode 'skip'): the jobs this claim would have started but for the rate
  // are ended cancelled, unrun, saying why (as commit-12.lua).
  let skipN = 0;
  if (rate) {
    const T = rate.perMs / rate.limit;
    const tau = (rate.burst ?? 0) * T;
    // THE LATENESS CARRY (burst 0, as commit-12.lua): tat may lag now by one interval, at
    // most THROTTLE_CARRY_MS.
    const lag = tau === 0 ? Math.min(T, THROTTLE_CARRY_MS) : 0;
    const tat = Math.max(flow.tat ?? 0, now - lag);
    gcra = { T, tau, tat };
    const allowed = tat <= now + tau ? Math.floor((now + tau - tat) / T) + 1 : 0;
    if (allowed < want) {
      if (rate.mode === 'skip') skipN = want - allowed;
      want = allowed;
      throttled = true;
    }
    if (want === 0 && skipN === 0) return { claimed: [], nextDueAt: Math.ceil(tat - tau), more: false };
  }
  promoteDue(lc, q, now);
  const keyGate = flow.keyGate;
  if (keyGate) releaseDueKeys(lc, q, now);
  const mrated = flow.machineRated;
  if (mrated) releaseDueMachines(lc, q, now);
  const claimed: ClaimedJob[] = [];
  const popped: string[] = [];
  const perKey = flow.limits.perKey;
  let seen = 0;
  const taking = new Map<string, number>();
  const takingGate = new Map<string, number>();
  while (popped.length < want && seen < FLOW_POP_CAP) {
    const e = q.index.queued.popMin();
    if (!e) break;
    seen++;
    if (!q.jobs.has(e.member)) {
      // No record (it vanished): nothing to run, and its key is unknown: the round robin's head
      // counts start afresh (MemoryLifecycle.headsAfresh).
      if (flow.roundRobin) lc.headsAfresh(q);
      continue;
    }
    const key = q.jobs.get(e.member)?.concurrencyKey;
    const inLine = claimOne(e, key);
    // A head of its key left `queued` (roundRobin: MemoryLifecycle.headLeft); its key's next
    // enters unless it was itself set aside in the key's line.
    if (key !== undefined && flow.roundRobin) lc.headLeft(q, key, !inLine);
  }
  // A job set aside in its key's line goes at its place: its score in `queued`, or on a
  // roundRobin queue its own place (a head entered at a fresh score, behind its band, and must
  // not fall behind its key's later jobs: commit-12.lua's linePlace).
  function linePlace(e: { member: string; score: number }): number {
    return flow.roundRobin ? (q.jobs.get(e.member)?.queueScore ?? e.score) : e.score;
  }
  // One popped job: set aside in its key's line (true), in its gate's line, cancelled, or to start.
  function claimOne(e: { member: string; score: number }, key: string | undefined): boolean {
    if (key !== undefined && keyGate && flow.pausedKeys.has(key)) {
      // A PAUSED KEY: into its line at its place; its resume puts it back.
      flow.waitingOf(key).add(e.member, linePlace(e));
      return true;
    }
    if (key !== undefined && perKey !== undefined) {
      // Its key's running jobs plus those of this claim already: full, it waits for a slot.
      const held = (flow.holders.get(key)?.size ?? 0) + (taking.get(key) ?? 0);
      if (held >= perKey) {
        const strategy = flow.limits.strategy;
        const j = q.jobs.get(e.member)!;
        if (strategy === 'cancelNewest') {
          // CANCEL NEWEST (as commit-12.lua): ends cancelled, unrun, saying why.
          const reason = `concurrency key ${key} is full (perKey ${perKey}, strategy cancelNewest)`;
          lc.move(q, j, 'cancelled', {
            kind: 'cancelled',
            log: [JSON.stringify({ type: 'cancelled', reason })],
          });
          return false;
        }
        if (strategy === 'cancelInProgress') {
          // CANCEL IN PROGRESS: one running job of the key not yet asked to stop is asked now.
          for (const hid of flow.holders.get(key) ?? []) {
            const h = q.jobs.get(hid);
            const worker = tokenWorker(h?.token);
            if (h && worker && !h.cancelRequested) {
              const reason = `a newer job of concurrency key ${key} (${j.id}) replaces it (strategy cancelInProgress)`;
              lc.requestCancel(q, h, worker, reason);
              break;
            }
          }
        }
        flow.waitingOf(key).add(e.member, linePlace(e));
        return true;
      }
    }
    // ITS MACHINE'S GATE IS FULL (lua/include/lcGate.lua): it waits in the gate's line.
    const machine = q.jobs.get(e.member)?.machine ?? '';
    const gate = flow.gateLimits.size > 0 ? flow.gateOf(machine) : undefined;
    if (
      gate &&
      (flow.gateHolders.get(gate.gate)?.size ?? 0) + (takingGate.get(gate.gate) ?? 0) >= gate.limit
    ) {
      let line = flow.gateLines.get(gate.gate);
      if (!line) flow.gateLines.set(gate.gate, (line = new ZSet()));
      line.add(e.member, e.score);
      return false;
    }
    // OVER ITS MACHINE'S RATE (machineRate.ts): in mode 'skip' ended cancelled, unrun; else it
    // waits in the machine's rate line, the machine due when its rate allows.
    const mrate = mrated ? machineRate(flow, machine) : undefined;
    const mAt = mrate && machineRateAt(flow, machine, now, mrate, false);
    if (mrate && mAt !== undefined) {
      if (mrate.skip) {
        const reason = `machine ${machine} is over its rate limit (mode skip)`;
        lc.move(q, q.jobs.get(e.member), 'cancelled', {
          kind: 'cancelled',
          log: [JSON.stringify({ type: 'cancelled', reason })],
        });
      } else machineRateWait(flow, e.member, machine, e.score, mAt);
      return false;
    }
    if (key !== undefined && keyGate) {
      const at = keyRateAt(flow, key, now);
      if (at !== undefined) {
        // OVER ITS KEY'S RATE (or held): in mode 'skip' ended cancelled, unrun; else it waits in
        // its key's line, the key due when its rate allows.
        if (flow.limits.keyRateLimit?.mode === 'skip') {
          const reason = `concurrency key ${key} is over its rate limit (mode skip)`;
          lc.move(q, q.jobs.get(e.member), 'cancelled', {
            kind: 'cancelled',
            log: [JSON.stringify({ type: 'cancelled', reason })],
          });
          return false;
        }
        flow.waitingOf(key).add(e.member, linePlace(e));
        keyDue(flow, key, at);
        return true;
      }
    }
    // Its start spends its machine's rate (only now: a job held back by its key spends none).
    if (mrate) machineRateAt(flow, machine, now, mrate, true);
    if (key !== undefined && perKey !== undefined) taking.set(key, (taking.get(key) ?? 0) + 1);
    if (gate) takingGate.set(gate.gate, (takingGate.get(gate.gate) ?? 0) + 1);
    popped.push(e.member);
    return false;
  }
  // The due jobs over the queue's rate, next in line: ended cancelled, unrun (mode 'skip').
  for (let i = 0; i < skipN; i++) {
    const e = q.index.queued.popMin();
    if (!e) break;
    const j = q.jobs.get(e.member);
    if (j?.concurrencyKey !== undefined && flow.roundRobin) lc.headLeft(q, j.concurrencyKey, true);
    if (!j && flow.roundRobin) lc.headsAfresh(q);
    if (j)
      lc.move(q, j, 'cancelled', {
        kind: 'cancelled',
        log: [JSON.stringify({ type: 'cancelled', reason: 'queue over its rate limit (mode skip)' })],
      });
  }
  const tok = q.tok;
  q.tok += popped.length;
  const deadline = now + claim.leaseMs;
  popped.forEach((id, i) => {
    const j = q.jobs.get(id);
    if (!j) return;
    // A child whose parent is on this queue: a parent that is gone, finished or being cancelled
    // ends it cancelled here, unrun.
    let parentGone: string | undefined;
    if (j.parentId !== undefined && !j.parentQueue) {
      const p = q.jobs.get(j.parentId);
      if (!p) parentGone = 'missing';
      else if (p.cancelRequested) parentGone = 'cancelled';
      else if (FINAL.has(p.status)) parentGone = p.status;
    }
    if (parentGone) {
      lc.move(q, j, 'cancelled', {
        kind: 'cancelled',
        log: [JSON.stringify({ type: 'cancelled', reason: `parent ${parentGone}` })],
      });
      return;
    }
    const token = `${claim.workerId}:${tok + i + 1}`;
    const status = !j.snapshot && claim.loadMachines.includes(j.machine) ? 'loading' : 'working';
    const attempt = j.attempt ?? 1;
    const r = lc.move(q, j, status, {
      kind: 'claimed',
      claim: {
        token,
        deadline,
        entry: attempt > 1 ? `{"type":"claimed","attempt":${attempt}}` : '{"type":"claimed"}',
      },
    });
    if (!('moved' in r) || r.moved !== status) return;
    // Holds a slot of its key while it runs (FlowState.ts; only while perKey is set).
    if (j.concurrencyKey !== undefined && flow.limits.perKey !== undefined)
      flow.holdersOf(j.concurrencyKey).add(id);
    // And a slot of its machine's gate (lua/include/lcGate.lua).
    const gate = flow.gateOf(j.machine)?.gate;
    if (gate !== undefined) flow.gateHolders.set(gate, (flow.gateHolders.get(gate) ?? new Set()).add(id));
    claimed.push({
      id,
      token,
      machine: j.machine,
      version: j.version,
      input: j.input,
      snapshot: j.snapshot,
      attempt,
      maxAttempts: j.maxAttempts,
      status,
      leaseRequeues: j.leaseRequeues ?? 0,
      retryLaters: j.retryLaters ?? 0,
      parentId: j.parentId,
      parentQueue: j.parentQueue || undefined,
      options: j.options,
      inbox: j.inboxConsumed ?? 0,
      hasInbox: j.inbox !== undefined,
      parentState: j.parentId !== undefined && !j.parentQueue ? 'live' : undefined,
    });
  });
  // After the pop cap, the jobs behind those set aside are to be claimed at once (commit-12.lua).
  const more = ((popped.length === want && !throttled) || seen >= FLOW_POP_CAP) && q.index.queued.size > 0;
  const first = popped.length < want ? q.index.delayed.first() : undefined;
  let nextDueAt = first ? first.score : null;
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
