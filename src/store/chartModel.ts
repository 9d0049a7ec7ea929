// The chart model: a machine drawn as plain JSON (states with their full XState ids, nesting,
// transitions as edges), what every renderer (Mermaid, DOT, SVG, the dashboard) reads. Plain
// data so that it can be published in the machine registry and drawn by a process that does not
// have the machine's code.

export type StateKind = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/** Something a state runs while it is active: an invoked actor, or a fanOut of child jobs. */
export interface GraphInvoke {
  id: string;
  /** The actor's name in setup({ actors }) (`inline` for logic not registered by name). */
  src: string;
  /** `fanOut` (child jobs), `step` (a durable step) or `actor` (anything else). */
  kind: 'fanOut' | 'step' | 'actor';
  /**
   * When the actor is an XState machine: its own chart, named `<parent name>/<invoke id>` under
   * the parent's version (the dashboard draws it beside the job's, lit from the child's snapshot).
   */
  machine?: MachineGraph;
}

export interface GraphNode {
  /** The full XState id (`approval.awaitingDecision`); the machine's root is its own id. */
  id: string;
  /** The state's key in its parent (the root's key is the machine id). */
  key: string;
  /** The parent state's id; null for the root. */
  parent: string | null;
  kind: StateKind;
  /** Child state ids in document order. */
  children: string[];
  /** For a compound state: the child entered first. */
  initial: string | null;
  invokes: GraphInvoke[];
  tags: string[];
  description?: string;
}

/** `event`: a named event; `after`: a delay; `always`: eventless; `done`/`error`: an invoke's ending. */
export type EdgeKind = 'event' | 'after' | 'always' | 'done' | 'error' | 'state-done';

export interface GraphEdge {
  /** Unique within the graph: `<source>:<index of the transition in the source>`. */
  id: string;
  source: string;
  /** Target state ids; empty for a targetless transition (actions only, drawn as a self loop). */
  targets: string[];
  /** The event type as XState names it (`APPROVE`, `xstate.after.deadline.approval.waiting`); '' for always. */
  event: string;
  kind: EdgeKind;
  /** For `done`/`error`: the invoke id; for `state-done`: the state whose final state was reached. */
  actor?: string;
  /** The guard's name (`isManager`, `and(a, not(b))`, `inline`), when guarded. */
  guard?: string;
  /** For `after`: the delay in ms, or the name of a delay from setup({ delays }). */
  delay?: number | string;
  /** The transition re-enters its source (`reenter: true`). */
  reenter?: boolean;
}

export interface MachineGraph {
  /** The registered name and version (a bare machine: its id, version 1). */
  name: string;
  version: number;
  /** `job`: a simple job, drawn as the shared lifecycle; `pipeline`: its own machine. */
  kind: 'job' | 'pipeline' | 'machine';
  /** The root state's id (the machine's id). */
  root: string;
  /** Every state, the root first, then depth first in document order. */
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/**
 * What a job adds to its machine's chart: the states active now, how often each state was
 * entered and each transition taken (from its audit log). Keys of `edgeVisits` are the
 * GraphEdge ids (`job.working:3`): two transitions between the same states (FAIL and REQUEUE
 * from working to queued) are counted apart. A pipeline that was cancelled or failed runs no
 * state any more: `active` is empty and `stopped` names the state(s) it ended in, `ended` why.
 */
export interface ChartMarks {
  active: string[];
  /** The states a cancelled or failed pipeline ended in (empty while it runs or once done). */
  stopped?: string[];
  ended?: 'cancelled' | 'failed';
  visits: Record<string, number>;
  edgeVisits: Record<string, number>;
}
