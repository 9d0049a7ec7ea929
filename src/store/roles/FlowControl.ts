// ROLE FlowControl (required): the flow gate of one stored queue (a queue, or one partition of a
// partitioned queue): whether its claim is paused, and its concurrency limits, read by the claim
// itself (lua/commit-12.lua, memory/commitOps.ts) so that every supervisor obeys them at once.
// The rules (docs/flow-control.md):
//   - PAUSED: the claim takes nothing; running jobs finish; enqueues are accepted as ever.
//   - TOTAL: a claim never takes the queue past `total` running (loading or working) jobs.
//   - PER KEY: a job with a concurrency key starts only while fewer than `perKey` jobs of that
//     key run; one that cannot is set aside in its key's waiting line (keeping its place) and
//     put back when a job of its key stops running, for whatever reason (done, failed,
//     cancelled, retried, parked, or requeued by the reaper after its worker died).
//   - THROTTLE: a claim starts no more jobs than the queue's GCRA allows (rateLimit); the others
//     stay queued, using no worker slot and no attempt, and the claim says when to look again.
//   - KEY THROTTLE: a job with a concurrency key starts only when its key's own GCRA allows
//     (keyRateLimit); one that cannot waits in its key's line (no slot, no attempt) and goes back
//     when the key's rate allows (the claim's next-due time includes it), or, in mode 'skip', is
//     ended cancelled unrun with the reason. A RateLimitedError from a job with a key holds back
//     only that key.
//   - MACHINE THROTTLE: a job starts only when its machine's own GCRA allows (machineRateLimits);
//     one that cannot waits in the machine's rate line (no slot, no attempt) and goes back when
//     the rate allows (the claim's next-due time includes it), or, in mode 'skip', is ended
//     cancelled unrun with the reason.
//   - PAUSED KEY: a job of a paused key waits in its key's line; other keys run.
//   - MACHINE GATES: a queue serving several machines may limit the running jobs of one machine
//     (gate 'm:<machine>') or of several together (a shared gate 's:<name>'): a job whose gate is
//     full waits in the gate's line, as a full key's do.
//   - ROUND ROBIN (fairness 'roundRobin'): `queued` holds at most one job per key (perKey with
//     perKey set), the others wait in the key's line; as a key's job leaves `queued` its next
//     enters at the back of its priority band, so keys alternate when only `total` binds.
//   - Only a running job holds a slot: a parked pipeline (waiting) or a retry waiting out its
//     backoff holds none.

/** The limits a stored queue's claim enforces; absent: no limit. */
export interface QueueLimits {
  /** Most running jobs in the queue (in this stored queue: a partition has its own). */
  total?: number;
  /** Most running jobs per concurrency key. */
  perKey?: number;
  /** The throttle: at most `limit` + `burst` job starts in any window of `perMs` (a GCRA). */
  rateLimit?: RateLimit;
  /** The throttle of each concurrency key on its own (a GCRA per key). */
  keyRateLimit?: RateLimit;
  /** What a job whose key is full does (default 'queue'). */
  strategy?: KeyStrategy;
  /** Between concurrency keys: 'roundRobin' alternates the keys (default 'fifo': queue order). */
  fairness?: Fairness;
  /** Most running jobs per machine gate, by gate id ('m:<machine>' or 's:<shared name>'). */
  gates?: Record<string, number>;
  /** The gate of each gated machine, by machine name. */
  machineGates?: Record<string, string>;
  /** The throttle of each throttled machine on its own (a GCRA per machine), by machine name. */
  machineRateLimits?: Record<string, RateLimit>;
}

/**
 * A full key's strategy: 'queue' waits for a slot; 'cancelNewest' ends the new job cancelled at
 * its claim, with the reason; 'cancelInProgress' asks one running job of the key to stop (it ends
 * cancelled) and the new job takes its slot.
 */
export type KeyStrategy = 'queue' | 'cancelNewest' | 'cancelInProgress';
export const KEY_STRATEGIES: readonly KeyStrategy[] = ['queue', 'cancelNewest', 'cancelInProgress'];

/**
 * The order between concurrency keys when only `total` binds: 'fifo' (default) starts jobs in
 * queue order; 'roundRobin' keeps at most one job of each key (perKey with perKey set) in
 * `queued`, the key's next entering at the back of its priority band as it leaves, so keys
 * alternate (lua/include/lcFlow.lua).
 */
export type Fairness = 'fifo' | 'roundRobin';
export const FAIRNESS: readonly Fairness[] = ['fifo', 'roundRobin'];

/**
 * A throttle: `limit` starts per `perMs`, and `burst` more at once (default 0). `mode` says what a
 * job over it does: 'wait' (default) stays in line until the rate allows; 'skip' is ended
 * cancelled at its claim, unrun, its audit log saying why.
 */
export interface RateLimit {
  limit: number;
  perMs: number;
  burst?: number;
  mode?: RateMode;
}

export type RateMode = 'wait' | 'skip';
export const RATE_MODES: readonly RateMode[] = ['wait', 'skip'];

/** A change of the gate: `null` clears a limit, an absent field keeps it. */
export interface QueueFlowChange {
  paused?: boolean;
  total?: number | null;
  perKey?: number | null;
  rateLimit?: RateLimit | null;
  keyRateLimit?: RateLimit | null;
  strategy?: KeyStrategy;
  /** The order between keys ('fifo' clears it). */
  fairness?: Fairness;
  /** Gate limits to set (`null` clears one); gates left out are kept. */
  gates?: Record<string, number | null>;
  /** Machines' gates to set (`null`: the machine has none); machines left out are kept. */
  machineGates?: Record<string, string | null>;
  /** Machines' throttles to set (`null` clears one); machines left out are kept. */
  machineRateLimits?: Record<string, RateLimit | null>;
  /**
   * The limits of a definition (a supervisor's, at start and on each registry refresh): written
   * only when the queue's limits were never set at run time (a change without this flag that
   * sets a limit marks them so, for good: an operator's change is not undone by a restart), and
   * only what differs (an unchanged throttle keeps its state).
   */
  fromDefinition?: true;
}

/** One concurrency key's use. */
export interface KeyUse {
  key: string;
  running: number;
  /** Jobs set aside in the key's line (the key was full, over its rate, or paused). */
  waiting: number;
  /** The key is paused (pauseKey). */
  paused?: true;
}

/**
 * One machine gate's use: gate 'm:<machine>' or 's:<shared name>', or 'r:<machine>' for the jobs
 * waiting for their machine's rate (that one has no running jobs of its own).
 */
export interface GateUse {
  gate: string;
  running: number;
  /** Jobs set aside in the gate's line while it was full. */
  waiting: number;
}

/** The gate of a stored queue and its current use. */
export interface QueueFlow {
  paused: boolean;
  limits: QueueLimits;
  /** Running (loading or working) jobs. */
  running: number;
  /** Keys with running or waiting jobs, by key. */
  keys: KeyUse[];
  /** Machine gates with running or waiting jobs, by gate id (absent: none). */
  gates?: GateUse[];
  /**
   * THROTTLED: when the throttle (or a RateLimitedError's hold) next lets a job start, when that
   * is later than now (store time); absent when a start is allowed now. nextStartAt computes it.
   */
  throttledUntil?: number;
}

/**
 * When the GCRA (state `tat`, commit-12.lua's THE THROTTLE and THE HOLD) next allows a start,
 * if later than `now`: the claim allows one while tat <= now + tau (tau = burst * perMs / limit;
 * 0 without a throttle, where `tat` is a hold's end).
 */
export function nextStartAt(
  rate: RateLimit | undefined,
  tat: number | undefined,
  now: number,
): number | undefined {
  if (tat === undefined || !Number.isFinite(tat)) return undefined;
  const tau = rate ? ((rate.burst ?? 0) * rate.perMs) / rate.limit : 0;
  const at = Math.ceil(tat - tau);
  return at > now ? at : undefined;
}

export interface FlowControl {
  /**
   * Changes the gate of `queue` (a stored queue: a partition's name for a partitioned queue). A
   * resume, or a limit raised or cleared, puts the jobs set aside for full keys back in line
   * and wakes an idle supervisor.
   */
  setQueueFlow(queue: string, change: QueueFlowChange): Promise<void>;
  /** The gate of `queue` and its current use. */
  queueFlow(queue: string): Promise<QueueFlow>;
  /**
   * Pauses (true) or resumes (false) one concurrency key of `queue`: its jobs wait in its line,
   * the other keys run. A resume puts its line back in `queue`'s and wakes an idle supervisor.
   */
  setKeyPaused(queue: string, key: string, paused: boolean): Promise<void>;
}
