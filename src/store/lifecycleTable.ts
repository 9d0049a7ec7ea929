// The lifecycle table both stores move jobs by: the `from -> to` edges, with the event that
// makes each. It is computed from machines/job.ts when this module loads (the machine is the
// one source: a transition added there is a move both stores allow), plus the moves only the
// store makes (STORE_MOVES). MemoryStore reads it here; RedisStore's Lua gets EDGES, FINAL and
// UPDATABLE generated from it (src/store/redis/luaConstants.ts), so nothing is kept equal by
// hand. test/lifecycle/lifecycleTable.test.ts evaluates the Lua table in Redis and requires it
// equal to this one, and this one equal to the table it writes out.

import type { AnyStateMachine } from 'xstate';
import { jobMachine } from '../../machines/job.js';
import { FINISHED, type JobStatus } from './jobStatus.js';

type Edges = Readonly<Record<JobStatus, Readonly<Partial<Record<JobStatus, string>>>>>;

// THE DUE CLAIM (redis/lua/include/lcClaimDue.lua) claims a due parked job straight from
// `delayed`: its WAKE (waiting -> queued) and CLAIM (queued -> loading | working) in one atomic
// step, not a waiting -> working edge; so the table has none, and MemoryStore makes both moves.

/**
 * The moves no worker's lifecycle makes, by the event that names them. REDRIVE (a dead letter
 * back in line, retryDeadLetter) is not an event of machines/job.ts: it starts a new lifecycle
 * rather than continuing one, and `failed` is final there, as XState's final states take no
 * event (the worker's lifecycle ends at it, and the supervisor persists what it reached).
 */
export const STORE_MOVES: Edges = {
  queued: {},
  loading: {},
  working: {},
  waiting: {},
  done: {},
  failed: { queued: 'REDRIVE' },
  cancelled: {},
};

export interface MachineMoves {
  /** from -> to -> the first event (in the machine's order) that makes the move. */
  edges: Record<string, Record<string, string>>;
  /** The machine's final states. */
  final: Set<string>;
  /** The states tagged `active`: a worker holds the job there. */
  active: Set<string>;
}

/**
 * A machine's top-level moves: each state's own transitions, then the root's (XState takes a
 * root transition from every state that does not handle the event itself, and none from a
 * final state). One status pair reached by several events (FAIL, RETRY_LATER and REQUEUE all
 * requeue) is named by the first.
 */
export function machineMoves(machine: AnyStateMachine): MachineMoves {
  const edges: Record<string, Record<string, string>> = {};
  const final = new Set<string>();
  const active = new Set<string>();
  const rootOn = machine.root.on;
  for (const [name, node] of Object.entries(machine.root.states)) {
    const out: Record<string, string> = (edges[name] = {});
    if (node.type === 'final') final.add(name);
    if (node.tags.includes('active')) active.add(name);
    if (node.type === 'final') continue;
    const events = [
      ...Object.entries(node.on),
      ...Object.entries(rootOn).filter(([event]) => node.on[event] === undefined),
    ];
    for (const [event, transitions] of events)
      for (const t of transitions) for (const target of t.target ?? []) out[target.key] ??= event;
  }
  return { edges, final, active };
}

const moves = machineMoves(jobMachine);
// A state the store has no status for (or a status the machine lacks) cannot be stored: the
// table would miss it. Found when the module loads, at the first import of either store.
const statuses = Object.keys(STORE_MOVES).sort().join(' ');
if (Object.keys(moves.edges).sort().join(' ') !== statuses)
  throw new Error(
    `machines/job.ts has the states ${Object.keys(moves.edges).join(' ')}; a job's statuses are ${statuses}`,
  );

/** The machine's moves with the store's own added. */
export const EDGES: Edges = Object.fromEntries(
  Object.entries(STORE_MOVES).map(([from, own]) => [from, { ...moves.edges[from], ...own }]),
) as Edges;

export const FINAL: ReadonlySet<JobStatus> = moves.final as ReadonlySet<JobStatus>;
// FINISHED (jobStatus.ts) names the final statuses for code that must not load XState (the
// dashboard's browser bundle): it must say what the machine says, or the module refuses to load.
if ([...FINISHED].sort().join(' ') !== [...FINAL].sort().join(' '))
  throw new Error(`jobStatus.ts FINISHED (${[...FINISHED].join(' ')}) is not the machine's final states`);
/** Statuses a write may keep (a checkpoint: progress, snapshot, inbox position): the machine's
 * `active` states, where a worker holds the job. */
export const UPDATABLE: ReadonlySet<JobStatus> = moves.active as ReadonlySet<JobStatus>;

/** Why a move is refused: no such job, THE FENCE, or not an edge from the job's status. */
export type Refusal = 'missing' | 'fence' | 'status';

/**
 * lcGuard's rules, in its order: the job exists; a worker's write carries the job's lease token
 * (`token` undefined: a move no worker makes: cancel, send, reap, redrive); the move is an edge
 * of EDGES (or keeps a status a write may keep, or requeues a queued job in place).
 */
export function guardMove(
  job: { status: JobStatus; token?: string } | undefined,
  to: JobStatus,
  token: string | undefined,
): Refusal | null {
  if (!job) return 'missing';
  if (token !== undefined && (token === '' || job.token !== token)) return 'fence';
  if (job.status === to) return UPDATABLE.has(to) || to === 'queued' ? null : 'status';
  if (EDGES[job.status][to] !== undefined) return null;
  // LOADED then SUCCEED, the LOADED checkpoint superseded by the done before it was sent.
  if (job.status === 'loading' && to === 'done' && token !== undefined) return null;
  return 'status';
}
