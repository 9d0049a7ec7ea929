// Why a machine does not take an event: the `reason` (and the guards) of an `event-ignored`
// audit entry. XState's `snapshot.can(event)` only says no; this looks at the same candidates
// it does (the transitions of the active state nodes whose event descriptor matches, wildcards
// included) to say whether there was none, or which guards stood in the way.

interface TransitionLike {
  guard?: unknown;
  target?: unknown;
  actions?: unknown[];
}

interface NodeLike {
  transitions?: Map<string, TransitionLike[]>;
  parent?: NodeLike;
}

export interface IgnoredReason {
  reason: string;
  /** The guards of the transitions that matched, in document order (all returned false). */
  guards?: string[];
}

/** XState's event descriptor match: exact, `*`, or a `prefix.*` partial descriptor. */
export function matchesDescriptor(eventType: string, descriptor: string): boolean {
  if (descriptor === eventType || descriptor === '*') return true;
  return descriptor.endsWith('.*') && eventType.startsWith(descriptor.slice(0, -1));
}

/** A guard as the machine names it: `'isManager'`, `and(a, not(b))`; `inline` for a function. */
export function guardName(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const g = guard as { name?: string; guards?: unknown[]; stateValue?: unknown };
    // XState's built-in guards (and, or, not, stateIn) are functions carrying their operands.
    if (Array.isArray(g.guards)) return `${g.name}(${g.guards.map(guardName).join(', ')})`;
    if (g.stateValue !== undefined) return `${g.name}(${JSON.stringify(g.stateValue)})`;
    // `{ guard: ({ event }) => ... }` names the arrow 'guard': that is no name of the user's.
    return g.name && g.name !== 'guard' ? g.name : 'inline';
  }
  const type = (guard as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : 'inline';
}

/** The active state nodes of a machine snapshot and their ancestors, each once. */
function activeNodes(snapshot: unknown): NodeLike[] {
  const nodes = (snapshot as { _nodes?: NodeLike[] })._nodes ?? [];
  const out = new Set<NodeLike>();
  for (const node of nodes) for (let n: NodeLike | undefined = node; n; n = n.parent) out.add(n);
  return [...out];
}

/**
 * Why a machine whose one active state node is `node` (the compiled runtime's states are all
 * top-level) does not take the event: what `whyIgnored` says of a snapshot in that state.
 */
export function whyIgnoredIn(node: unknown, eventType: string): IgnoredReason {
  return whyIgnored({ _nodes: [node] }, eventType);
}

/** Why `snapshot.can(event)` is false for this event type. */
export function whyIgnored(snapshot: unknown, eventType: string): IgnoredReason {
  const candidates: TransitionLike[] = [];
  for (const node of activeNodes(snapshot)) {
    for (const [descriptor, list] of node.transitions ?? []) {
      if (matchesDescriptor(eventType, descriptor)) candidates.push(...list);
    }
  }
  if (candidates.length === 0) return noTransition(eventType);
  const guards = candidates.filter((t) => t.guard !== undefined).map((t) => guardName(t.guard));
  if (guards.length < candidates.length) {
    // An unguarded candidate with neither target nor actions: XState's forbidden transition.
    return { reason: `the transition for '${eventType}' is forbidden (no target, no actions)` };
  }
  const named = guards.map((g) => `'${g}'`).join(', ');
  return { reason: `${guards.length === 1 ? 'guard' : 'guards'} returned false: ${named}`, guards };
}

/** The reason when no active state has a transition for the event. */
export function noTransition(eventType: string): IgnoredReason {
  return { reason: `no transition for '${eventType}' in the active states` };
}
