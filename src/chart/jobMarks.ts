// What a job adds to its chart: the states active now, and how often each state was entered and
// each transition taken, read from its audit log. A pipeline's log names the states its machine
// settled in (`state` and `parked` entries, see CheckpointWriter); a simple job's log names its
// lifecycle moves (enqueued, claimed, retry-scheduled, done, ...), mapped here onto
// machines/job.ts. States passed through within one macrostep (an `always` hop) are not logged:
// a step between two logged states with no direct edge is matched through one eventless state.

import type { AuditEntry, JobRecord } from '../store/types.js';
import type { ChartMarks, GraphEdge, MachineGraph } from './chartModel.js';
import { stateValueIds } from './stateValueIds.js';

/** Lifecycle state a simple job's audit entry moves it to ('claimed' is decided by what follows). */
const LIFECYCLE_MOVES: Record<string, string> = {
  enqueued: 'queued',
  'retry-scheduled': 'queued',
  'retry-later': 'queued',
  requeued: 'queued',
  'lease-requeued': 'queued',
  redriven: 'queued',
  parked: 'waiting',
  done: 'done',
  failed: 'failed',
  broken: 'failed',
  cancelled: 'cancelled',
};

/** The state values a job went through, oldest first, each change once. */
export function stateHistory(graph: MachineGraph, log: readonly AuditEntry[]): unknown[] {
  const values: unknown[] = [];
  const push = (v: unknown) => {
    if (v === undefined || v === null) return;
    if (values.length && JSON.stringify(values[values.length - 1]) === JSON.stringify(v)) return;
    values.push(v);
  };
  if (graph.kind !== 'job') {
    for (const e of log) if (e.type === 'state' || e.type === 'parked') push(e.state);
    return values;
  }
  log.forEach((e, i) => {
    if (e.type === 'claimed') {
      // A job with a load phase is claimed into `loading` and logs `state: working` after it.
      const next = log.slice(i + 1).find((n) => n.type === 'state' || LIFECYCLE_MOVES[n.type]);
      push(next?.type === 'state' && next.state === 'working' ? 'loading' : 'working');
    } else if (e.type === 'state') push(e.state);
    else if (LIFECYCLE_MOVES[e.type]) push(LIFECYCLE_MOVES[e.type]);
  });
  return values;
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
  for (const value of stateHistory(graph, auditLog)) {
    const next = new Set(stateValueIds(graph, value));
    const entered = [...next].filter((id) => !prev.has(id) && id !== graph.root);
    for (const id of entered) bump(visits, id);
    if (prev.size > 0 && entered.length > 0) {
      for (const hop of takenEdges(graph, prev, new Set(entered), next)) {
        bump(edgeVisits, hop.key);
        if (hop.via) bump(visits, hop.via);
      }
    }
    prev = next;
  }
  return { active, stopped, visits, edgeVisits, ...(ended ? { ended } : {}) };
}

interface Hop {
  key: string;
  via?: string;
}

/** The edges that explain a step from `prev` to `next` (each from->to once). */
function takenEdges(graph: MachineGraph, prev: Set<string>, entered: Set<string>, next: Set<string>): Hop[] {
  const keys = new Map<string, Hop>();
  const into = (e: GraphEdge, set: Set<string>) => e.targets.filter((t) => set.has(t));
  for (const e of graph.edges) {
    if (!prev.has(e.source)) continue;
    for (const t of into(e, entered)) keys.set(`${e.source}->${t}`, { key: `${e.source}->${t}` });
  }
  if (keys.size > 0) return [...keys.values()];
  // Through one state left again in the same macrostep by an eventless transition.
  const hops: Hop[] = [];
  for (const e of graph.edges) {
    if (!prev.has(e.source)) continue;
    for (const mid of e.targets) {
      if (next.has(mid)) continue;
      for (const e2 of graph.edges) {
        if (e2.source !== mid || e2.kind !== 'always') continue;
        for (const t of into(e2, entered)) {
          hops.push({ key: `${e.source}->${mid}`, via: mid }, { key: `${mid}->${t}` });
        }
      }
    }
  }
  return hops;
}
