// Where a compiled run (runCompiledPipeline.ts) starts: fresh, or from a stored snapshot the
// compiled table can continue exactly (else the XState runtime restores it: runPipeline.ts).

import type { CompiledPipeline, CompiledState, Ctx } from './compiledTable.js';
import type { StoredTimer } from './timers.js';
import { storedWaitTimers } from './compiledTimers.js';

/** Where a compiled run starts: fresh, or at a stored step state (its step runs again). */
export interface CompiledStart {
  state: CompiledState;
  context: Ctx;
  /** The step's input as stored (XState re-runs a restored invoke with its stored input). */
  stepInput: unknown;
  resumed: boolean;
  /** A wait state's or a timed step state's stored timers (set only for such a state). */
  timers?: StoredTimer[];
}

interface PersistedChild {
  snapshot?: { status?: string; input?: unknown };
  src?: unknown;
}

/**
 * The start of a compiled run from a stored machine snapshot, or null when only the XState
 * runtime can restore it (a snapshot of another shape, stored timers not the state's own).
 */
export function compiledStart(
  compiled: CompiledPipeline,
  persisted: unknown,
  timers: StoredTimer[] | undefined,
  /** The snapshot was migrated: its timers are the XState runtime's to reconcile. */
  migrated = false,
): CompiledStart | 'fresh' | null {
  if (persisted === undefined) return 'fresh';
  const p = persisted as { status?: unknown; value?: unknown; context?: unknown; children?: unknown };
  if (p.status !== 'active' || typeof p.value !== 'string') return null;
  const state = compiled.states.get(p.value);
  if (!state || !p.context || typeof p.context !== 'object') return null;
  const children = (p.children ?? {}) as Record<string, PersistedChild | undefined>;
  const ids = Object.keys(children);
  const wait = state.wait;
  if (wait) {
    // A wait state restores with its own timers, exactly as the XState runtime stored them.
    const own = migrated || ids.length !== 0 ? null : storedWaitTimers(wait, timers ?? []);
    if (!own) return null;
    return { state, context: p.context as Ctx, stepInput: undefined, resumed: true, timers: own };
  }
  const step = state.step;
  if (!step) return null;
  // A step with a timeout restores with its own timers (their due times kept), as the XState
  // runtime stored them; any other step state with none.
  const own = step.after && !migrated ? storedWaitTimers(step.after, timers ?? []) : null;
  if (!own && (timers?.length ?? 0) > 0) return null;
  const child = children[step.invokeId];
  if (ids.length !== 1 || child?.snapshot?.status !== 'active' || child.src !== step.src) return null;
  const start = { state, context: p.context as Ctx, stepInput: child.snapshot.input, resumed: true };
  return own ? { ...start, timers: own } : start;
}
