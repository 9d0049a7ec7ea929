// What a job adds to its chart: the states active now, and how often each state was entered and
// each transition taken, read from its audit log. A pipeline's log names the states its machine
// settled in (`state` and `parked` entries, see CheckpointWriter); a simple job's log names its
// lifecycle moves (enqueued, claimed, retry-scheduled, done, ...), mapped here onto
// machines/job.ts, each with the event that moved it: the lifecycle has several transitions
// between the same two states (working -> queued on FAIL [canRetry], RETRY_LATER and REQUEUE),
// and only the one the entry names was taken. States passed through within one macrostep (an
// `always` hop) are not logged: a step between two logged states with no direct edge is matched
// through one eventless state.

import type { AuditEntry, JobRecord } from '../store/types.js';
import type { ChartMarks, GraphEdge, MachineGraph } from '../store/chartModel.js';
import { stateValueIds } from './stateValueIds.js';

/** Lifecycle state a simple job's audit entry moves it to ('claimed' is decided by what follows). */
const LIFECYCLE_MOVES: Record<string, string> = {
  enqueued: 'queued',
  'retry-scheduled': 'queued',
  'retry-later': 'queued',
  'rate-limited': 'queued',
  requeued: 'queued',
  'lease-requeued': 'queued',
  redriven: 'queued',
  parked: 'waiting',
  done: 'done',
  failed: 'failed',
  broken: 'failed',
  cancelled: 'cancelled',
};

/**
 * The lifecycle event (machines/job.ts) behind each move. `redriven` and `broken` have none: a
 * redrive starts a new run from a final state, a broken job never ran (no edge is lit).
 */
const LIFECYCLE_EVENTS: Record<string, string> = {
  claimed: 'CLAIM',
  'retry-scheduled': 'FAIL',
  'retry-later': 'RETRY_LATER',
  'rate-limited': 'RETRY_LATER',
  requeued: 'REQUEUE',
  'lease-requeued': 'REQUEUE',
  parked: 'PARK',
  done: 'SUCCEED',
  failed: 'FAIL',
  cancelled: 'CANCEL',
};

/** One change of state: the value it reached and, when the log says, the event that moved it. */
interface Step {
  value: unknown;
  /** The event type; undefined when the log does not say (a pipeline's steps), '' when no edge was taken. */
  event?: string;
}

/** The steps a job went through, oldest first, each change once. */
function stateSteps(graph: MachineGraph, log: readonly AuditEntry[]): Step[] {
  const steps: Step[] = [];
  const push = (value: unknown, event?: string) => {
    if (value === undefined || value === null) return;
    const last = steps[steps.length - 1];
    if (last && JSON.stringify(last.value) === JSON.stringify(value)) return;
    steps.push({ value, event });
  };
  if (graph.kind !== 'job') {
    for (const e of log) if (e.type === 'state' || e.type === 'parked') push(e.state);
    return steps;
  }
  log.forEach((e, i) => {
    if (e.type === 'claimed') {
      // A job with a load phase is claimed into `loading` and logs `state: working` after it.
      const next = log.slice(i + 1).find((n) => n.type === 'state' || LIFECYCLE_MOVES[n.type]);
      push(next?.type === 'state' && next.state === 'working' ? 'loading' : 'working', 'CLAIM');
    } else if (e.type === 'state') push(e.state, e.state === 'working' ? 'LOADED' : '');
    else if (LIFECYCLE_MOVES[e.type]) push(LIFECYCLE_MOVES[e.type], LIFECYCLE_EVENTS[e.type] ?? '');
  });
  return steps;
}

/** The state values a job went through, oldest first, each change once. */
export function stateHistory(graph: MachineGraph, log: readonly AuditEntry[]): unknown[] {
  return stateSteps(graph, log).map((s) => s.value);
}

/** The state value a record is in now: a pipeline's machine state, a simple job's status. */
export function currentStateValue(graph: MachineGraph, record: JobRecord): unknown {
  if (graph.kind === 'job') return record.status;
  // Before its first run a pipeline has no machine state (the record shows its status).
  return (record.snapshot as { w?: unknown } | null)?.w ? record.state : null;
}

/**
 * The marks for one job on its machine's graph.
 * @example toMermaid(graph, jobMarks(await client.get(id), await client.events(id), graph))
 */
export function jobMarks(
  record: JobRecord,
  auditLog: readonly AuditEntry[],
  graph: MachineGraph,
): ChartMarks {
  const current = currentStateValue(graph, record);
  const inState = current === null ? [] : stateValueIds(graph, current).filter((id) => id !== graph.root);
  // A simple job's cancelled or failed is a lifecycle state of its own; a pipeline that was
  // cancelled or failed only stopped where it was: it is not lit as if it still ran there.
  const ended =
    graph.kind !== 'job' && (record.status === 'cancelled' || record.status === 'failed')
      ? record.status
      : undefined;
  const active = ended ? [] : inState;
  const stopped = ended ? inState : [];
  const visits: Record<string, number> = {};
  const edgeVisits: Record<string, number> = {};
  const bump = (map: Record<string, number>, key: string) => (map[key] = (map[key] ?? 0) + 1);
  let prev = new Set<string>();
  for (const { value, event } of stateSteps(graph, auditLog)) {
    const next = new Set(stateValueIds(graph, value));
    const entered = [...next].filter((id) => !prev.has(id) && id !== graph.root);
    for (const id of entered) bump(visits, id);
    if (prev.size > 0 && entered.length > 0) {
      for (const hop of takenEdges(graph, { prev, entered: new Set(entered), next, event })) {
        bump(edgeVisits, hop.key);
        if (hop.via) bump(visits, hop.via);
      }
    }
    prev = next;
  }
  return { active, stopped, visits, edgeVisits, ...(ended ? { ended } : {}) };
}

interface Hop {
  /** The GraphEdge's id. */
  key: string;
  via?: string;
}

/**
 * The edges that explain a step from `prev` to `next`, each once. With the step's `event` known
 * only edges on that event count (a simple job's log names it); without it (a pipeline's
 * checkpoints name states, not events) every edge between the two states does.
 */
function takenEdges(
  graph: MachineGraph,
  step: { prev: Set<string>; entered: Set<string>; next: Set<string>; event: string | undefined },
): Hop[] {
  const { prev, entered, next, event } = step;
  if (event === '') return [];
  const keys = new Map<string, Hop>();
  const into = (e: GraphEdge, set: Set<string>) => e.targets.filter((t) => set.has(t));
  const from = graph.edges.filter((e) => prev.has(e.source) && (event === undefined || e.event === event));
  for (const e of from) if (into(e, entered).length > 0) keys.set(e.id, { key: e.id });
  if (keys.size > 0 || event !== undefined) return [...keys.values()];
  // Through one state left again in the same macrostep by an eventless transition.
  const hops = new Map<string, Hop>();
  for (const e of from) {
    for (const mid of e.targets) {
      if (next.has(mid)) continue;
      for (const e2 of graph.edges) {
        if (e2.source !== mid || e2.kind !== 'always' || into(e2, entered).length === 0) continue;
        hops.set(e.id, { key: e.id, via: mid }).set(e2.id, { key: e2.id });
      }
    }
  }
  return [...hops.values()];
}
