// Where a retry of an errored XState pipeline resumes: the actor tree as it last ran, not as the
// error left it. An error tears the tree down before the run can persist it: the machine that
// errored drops its children, a promise actor that rejected forgets its input (XState sets it to
// undefined), and a sibling still in flight is stopped (persisted as `{status: 'stopped'}`). A
// snapshot taken then restores a state whose invoke never runs again, or runs with `input`
// undefined, and the job waits forever or fails every retry the same way.
//
// So the run notes, per actor (by reference: invoke ids repeat across nested machines), what it
// must restore: each machine's last active snapshot, and each other actor's persisted snapshot
// from when it was first seen running (status active, with its input). The resume snapshot is
// built from those, from the root down; restored, XState re-runs every invoke that was in flight
// or failed (in-flight invokes re-run on restore) and nothing that completed before.

import type { AnyActorRef, AnyStateMachine } from 'xstate';
import { isMachineLogic } from './parkable.js';
import { persistedMachineSnapshot } from './persisted.js';

interface LiveSnapshot {
  status?: string;
  children?: Record<string, AnyActorRef | undefined>;
}

interface PersistedNode {
  status?: string;
  error?: unknown;
  children?: Record<string, { snapshot?: unknown; [k: string]: unknown } | undefined>;
  [k: string]: unknown;
}

export class ResumePoint {
  // Plain maps: they live as long as the run whose actors they key (a WeakMap costs the GC more).
  private readonly machines = new Map<AnyActorRef, LiveSnapshot>();
  /** Made when the first actor that is not a machine is seen. */
  private running: Map<AnyActorRef, unknown> | undefined;

  /** A machine actor's snapshot: kept while it is active. */
  noteMachine(ref: AnyActorRef, snapshot: LiveSnapshot): void {
    if (snapshot.status === 'active') this.machines.set(ref, snapshot);
  }

  /** Any other actor, when first seen: its persisted snapshot while it runs (with its input). */
  noteActor(ref: AnyActorRef): void {
    const running = (this.running ??= new Map());
    if (running.has(ref)) return;
    const persisted = ref.getPersistedSnapshot?.() as { status?: string } | undefined;
    if (persisted?.status === 'active') running.set(ref, persisted);
  }

  /** The root's last active snapshot, or undefined before it had one. */
  lastActive(root: AnyActorRef): LiveSnapshot | undefined {
    return this.machines.get(root);
  }

  /**
   * The persisted snapshot a retry resumes from: `machine` in its last active `snapshot`, each
   * child machine in its own last active one, each other child as it was when it started.
   * Throws UnserializableSnapshotError as persistedMachineSnapshot does.
   */
  persisted(machine: AnyStateMachine, snapshot: LiveSnapshot): unknown {
    const out = { ...(persistedMachineSnapshot(machine, snapshot) as PersistedNode) };
    out.status = 'active';
    delete out.error;
    if (!out.children) return out;
    const children: NonNullable<PersistedNode['children']> = {};
    for (const [id, stored] of Object.entries(out.children)) {
      const ref = snapshot.children?.[id];
      let restored: unknown;
      if (ref && isMachineLogic((ref as { logic?: unknown }).logic)) {
        const last = this.machines.get(ref);
        if (last) restored = this.persisted((ref as unknown as { logic: AnyStateMachine }).logic, last);
      } else if (ref) {
        restored = this.running?.get(ref);
      }
      children[id] = stored && restored !== undefined ? { ...stored, snapshot: restored } : stored;
    }
    out.children = children;
    return out;
  }
}
