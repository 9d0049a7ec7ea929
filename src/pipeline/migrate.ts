// A job stored by an older version of its pipeline, brought to the version that now runs it.
// `migrate` gets the stored machine snapshot and its pending timers, and returns the snapshot
// (the timers then stay as they were) or `{ snapshot, timers }`. A migrate that renames or
// removes states cannot be trusted to mend the timers: a stored `after` timer names the state
// that armed it, and a state that no longer exists ignores its event, so the job would wait
// for ever with no error. So after ANY migrate the timers are reconciled with the restored
// machine: an `after` timer whose state is not active is dropped, and each active state's
// `after` delays that have no timer are armed from now (a named delay is resolved with the
// restored context). The run logs what changed (`timers-migrated`).

import type { AnyActor, AnyActorRef, AnyStateMachine } from 'xstate';
import { isMachineLogic } from './parkable.js';
import { actorsByPath, type StoredTimer } from './timers.js';

/** What a migrate may return instead of the bare snapshot: the snapshot and its timers. */
export interface MigratedSnapshot {
  snapshot: unknown;
  timers: StoredTimer[];
}

export type MigrateFunction = (
  snapshot: unknown,
  fromVersion: number,
  timers: readonly StoredTimer[],
) => unknown;

/** A persisted machine snapshot always has a `value`; the `{ snapshot, timers }` form never. */
function isMigratedSnapshot(v: unknown): v is MigratedSnapshot {
  return (
    typeof v === 'object' &&
    v !== null &&
    'snapshot' in v &&
    Array.isArray((v as { timers?: unknown }).timers) &&
    !('value' in v)
  );
}

/** Runs `migrate` on a stored snapshot and its timers. */
export function runMigrate(
  migrate: MigrateFunction,
  snapshot: unknown,
  fromVersion: number,
  timers: readonly StoredTimer[],
): MigratedSnapshot {
  const out = migrate(snapshot, fromVersion, timers);
  return isMigratedSnapshot(out) ? out : { snapshot: out, timers: [...timers] };
}

interface AfterTransition {
  delay: number | string;
  eventType: string;
}

interface LiveMachineSnapshot {
  status?: string;
  context?: unknown;
  _nodes?: { after?: AfterTransition[] }[];
}

const AFTER = 'xstate.after.';

/** The `after` event types of the active states of a machine actor, with their delays. */
function activeAfters(ref: AnyActorRef): Map<string, number | string> {
  const out = new Map<string, number | string>();
  const snap = ref.getSnapshot() as LiveMachineSnapshot;
  if (snap?.status !== 'active') return out;
  for (const node of snap._nodes ?? []) for (const t of node.after ?? []) out.set(t.eventType, t.delay);
  return out;
}

/** A delay as XState's raise resolves it: a number, or a named one of `setup({ delays })`. */
function resolveDelay(ref: AnyActorRef, delay: number | string): number | undefined {
  if (typeof delay === 'number') return delay;
  const machine = (ref as unknown as { logic: AnyStateMachine }).logic;
  const named = (machine.implementations.delays as Record<string, unknown> | undefined)?.[delay];
  const snap = ref.getSnapshot() as LiveMachineSnapshot;
  const value =
    typeof named === 'function'
      ? (named as (args: unknown, params: unknown) => unknown)(
          { context: snap.context, event: { type: 'machinist.migrated' }, self: ref, system: ref.system },
          undefined,
        )
      : named;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

export interface ReconciledTimers {
  timers: StoredTimer[];
  /** Ids of the timers dropped: their source actor is gone, or their `after` state inactive. */
  dropped: string[];
  /** The `after` timers armed from now for active states that had none. */
  armed: StoredTimer[];
}

/** The timers a migrated job resumes with, on its restored (started) actor. `now`: Redis time. */
export function reconcileTimers(
  root: AnyActor,
  timers: readonly StoredTimer[],
  now: number,
): ReconciledTimers {
  const byPath = actorsByPath(root);
  const afters = new Map<string, Map<string, number | string>>();
  for (const [path, ref] of byPath)
    if (isMachineLogic((ref as { logic?: unknown }).logic)) afters.set(path, activeAfters(ref));
  const kept: StoredTimer[] = [];
  const dropped: string[] = [];
  for (const t of timers) {
    const ofSource = afters.get(t.source);
    const gone = !byPath.has(t.source) || !byPath.has(t.target);
    // Only `after` timers name a state; a delayed send stays while its actor exists.
    if (gone || (t.id.startsWith(AFTER) && !ofSource?.has(t.id))) dropped.push(t.id);
    else kept.push(t);
  }
  const armed: StoredTimer[] = [];
  for (const [path, events] of afters) {
    for (const [id, delay] of events) {
      if (kept.some((t) => t.source === path && t.id === id)) continue;
      const ms = resolveDelay(byPath.get(path)!, delay);
      if (ms === undefined) continue;
      armed.push({ id, source: path, target: path, event: { type: id }, dueAt: now + ms });
    }
  }
  return { timers: [...kept, ...armed], dropped, armed };
}
